#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Check that the section 3 man pages match udmem.h.

    check-man.py HEADER PAGE...

Every function udmem.h declares must be named in the NAME line of exactly
one page, and that page's SYNOPSIS must declare it with the header's
prototype (spaces aside); a page may not name or declare a function the
header lacks, and every UDMEM_* word a page uses (but the title and the
symbol version nodes, UDMEM_1.0 ...) must be defined in the header.
Prints one line per problem and exits 1 if there is any.
"""

import re
import sys


def squeeze(text):
    """One space between words, none around punctuation."""
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s*([(),*])\s*", r"\1", text)


def header_prototypes(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    protos = {}
    for stmt in re.split(r"[;{}]", text):
        s = squeeze(stmt)
        m = re.fullmatch(r"[\w *]*?\b(udmem_\w+)\(.*\)", s)
        if m:
            protos[m.group(1)] = s
    return protos


def groff_args(line):
    """The arguments of a macro line, as groff splits them."""
    return [a[1:-1] if a.startswith('"') else a
            for a in re.findall(r'"[^"]*"|\S+', line)]


def unescape(text):
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace("\\-", "-").replace("\\e", "\\").replace("\\(em", "--")


def page_facts(path):
    """(names of the NAME line, SYNOPSIS text of the .nf block, whole text)."""
    with open(path) as f:
        lines = f.read().splitlines()
    names, synopsis, section, in_nf = [], [], "", False
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            section = line[4:].strip('"')
            if section == "NAME" and i + 1 < len(lines):
                names = [n.strip() for n in
                         unescape(lines[i + 1]).split(" - ")[0].split(",")]
            continue
        if section != "SYNOPSIS":
            continue
        if line == ".nf":
            in_nf = True
        elif line == ".fi":
            in_nf = False
        elif in_nf and not line.startswith((".PP", ".P", ".sp", ".br")):
            if re.match(r"\.(B|I|R|BI|IB|BR|RB|IR|RI)\s", line):
                word = "".join(groff_args(line.split(None, 1)[1]))
            else:
                word = line
            word = unescape(word)
            if not word.startswith("#"):
                synopsis.append(word)
    body = [line for line in lines if not line.startswith(".TH ")]
    return names, " ".join(synopsis), "\n".join(body)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    header, pages = argv[1], argv[2:]
    protos = header_prototypes(header)
    with open(header) as f:
        defined = set(re.findall(r"\bUDMEM_[A-Z][A-Z0-9_]*\b", f.read()))
    problems, owner = [], {}
    for page in pages:
        names, synopsis, text = page_facts(page)
        declared = {}
        for stmt in synopsis.split(";"):
            s = squeeze(stmt)
            m = re.fullmatch(r"[\w *]*?\b(udmem_\w+)\(.*\)", s)
            if m:
                declared[m.group(1)] = s
            elif s:
                problems.append(f"{page}: SYNOPSIS: not a prototype: {s}")
        for name in names:
            if not name.startswith("udmem_"):
                continue
            if name not in protos:
                problems.append(f"{page}: NAME: {name} is not in {header}")
                continue
            if name in owner:
                problems.append(f"{page}: NAME: {name} is also in {owner[name]}")
            owner[name] = page
            if name not in declared:
                problems.append(f"{page}: SYNOPSIS: no prototype of {name}")
            elif declared[name] != protos[name]:
                problems.append(f"{page}: SYNOPSIS: {declared[name]} but {header} "
                                f"has {protos[name]}")
        for name in declared:
            if name not in names:
                problems.append(f"{page}: SYNOPSIS declares {name}, NAME lacks it")
        for word in sorted(set(re.findall(r"\bUDMEM_[A-Z][A-Z0-9_]*\b", text)) - defined):
            problems.append(f"{page}: {word} is not defined in {header}")
    for name in sorted(set(protos) - set(owner)):
        problems.append(f"{header}: {name} has no man page")
    for p in problems:
        print(p)
    if not problems:
        print(f"check-man: OK, {len(protos)} functions in {len(pages)} pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
