# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A private apt (its own lists and cache) for Debian's kernel packages."""

import fcntl
import glob
import os
import re
import subprocess
import threading
import time

from .config import ARCHIVE, CACHE
from .util import log, run

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
APT_SOURCES = "".join(
    f"deb [{'arch=' + ','.join(archs) + ' ' if archs else ''}signed-by={KEYRING}] "
    f"{url} {suite} main\n" for suite, (url, archs) in ARCHIVE.items())
# apt-cache with its binary caches on (a Docker host's apt.conf.d turns them
# off, and command-line options win over it): without them every call parses
# every list again, 7 s of CPU; with them 0.1 s once the cache is built.
APT_CACHE = ["apt-cache", "-o", "Dir::Cache::pkgcache=pkgcache.bin",
             "-o", "Dir::Cache::srcpkgcache=srcpkgcache.bin"]
# Process-wide: the package lists were refreshed (or tried) by this run.
APT_TRIED = threading.Event()


def apt_env():
    apt = os.path.join(CACHE, "apt")
    conf = os.path.join(apt, "apt.conf")
    stamp = os.path.join(apt, "updated")
    for d in ("lists/partial", "cache/archives/partial", "empty"):
        os.makedirs(os.path.join(apt, d), exist_ok=True)
    env = dict(os.environ, APT_CONFIG=conf, LC_ALL="C")
    with open(os.path.join(apt, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        sources = os.path.join(apt, "sources.list")
        old = open(sources).read() if os.path.exists(sources) else ""
        if old != APT_SOURCES:
            with open(sources, "w") as f:
                f.write(APT_SOURCES)
            if os.path.exists(stamp):
                os.unlink(stamp)
        if not os.path.exists(conf):
            with open(conf, "w") as f:
                f.write(f'Dir::Etc::SourceList "{apt}/sources.list";\n'
                        f'Dir::Etc::SourceParts "{apt}/empty";\n'
                        f'Dir::Etc::PreferencesParts "{apt}/empty";\n'
                        f'Dir::State::Lists "{apt}/lists";\n'
                        f'Dir::Cache "{apt}/cache";\n'
                        f'Dir::State::status "{apt}/empty/status";\n'
                        'APT::Architectures { "amd64"; "arm64"; "armhf"; "riscv64"; };\n'
                        'Acquire::Languages "none";\n'
                        'Acquire::Retries "3";\n'
                        'APT::Sandbox::User "root";\n')
            open(os.path.join(apt, "empty", "status"), "w").close()
        # Refresh the package lists at most once a day, and once per run
        # while an index keeps failing.
        fresh = os.path.exists(stamp) and time.time() - os.path.getmtime(stamp) < 86400
        if not fresh and not APT_TRIED.is_set():
            apt_update(apt, env, stamp)
    return env


def apt_update(apt, env, stamp):
    """apt-get update.  An index that fails (a mirror caught mid-sync serves
    files that do not match its signed Release) costs only the targets that
    need it: apt keeps the other lists, and the failures are written to
    apt/failed-indexes for index_failure() to name."""
    log(f"udmem-qemu: apt-get update (private lists in {apt})")
    APT_TRIED.set()
    r = run(["apt-get", "-q", "update"], env=env, check=False, text=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    failed = [line for line in r.stderr.splitlines()
              if line.startswith("E: Failed to fetch")]
    path = os.path.join(apt, "failed-indexes")
    if r.returncode == 0:
        open(stamp, "w").close()
        if os.path.exists(path):
            os.unlink(path)
        return
    log("udmem-qemu: apt-get update failed for some indexes:\n" + r.stderr.strip())
    with open(path, "w") as f:
        f.write("\n".join(failed) + "\n")


def index_failure(conf):
    """The failed apt-get update line for one of this target's indexes, if any."""
    path = os.path.join(CACHE, "apt", "failed-indexes")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            for suite in conf.suites:
                if f"/dists/{suite}/" in line and f"binary-{conf.deb_arch}/" in line:
                    return line.strip()
    return None


def version_gt(a, b):
    return subprocess.run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0


def newest_version(env, pkg, suites):
    """Newest version of pkg (with :arch) published in one of suites."""
    out = run(APT_CACHE + ["madison", pkg], env=env, capture_output=True,
              text=True).stdout
    best = None
    for line in out.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) < 3:
            continue
        suite = parts[2].split()[1].split("/")[0] if len(parts[2].split()) > 1 else ""
        if suite in suites and (best is None or version_gt(parts[1], best)):
            best = parts[1]
    if best is None:
        raise RuntimeError(f"no version of {pkg} in {' '.join(suites)}")
    return best


def depends_of(env, pkg, version):
    out = run(APT_CACHE + ["show", f"{pkg}={version}"], env=env,
              capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("Depends:"):
            return [d.strip() for d in line[8:].split(",")]
    return []


def resolve_kernel(env, flavour, deb_arch, suites, series=""):
    """Return (abi, version, kbuild package name) of the newest
    linux-image-FLAVOUR:DEB_ARCH (linux-image-SERIES-FLAVOUR) in SUITES."""
    meta = f"linux-image-{series + '-' if series else ''}{flavour}:{deb_arch}"
    ver = newest_version(env, meta, suites)
    for dep in depends_of(env, meta, ver):
        m = re.match(r"linux-image-(\S+?)-" + re.escape(flavour) +
                     r"(?:-unsigned)?\s*\(=\s*(\S+)\)", dep)
        if m:
            abi, kver = m.group(1), m.group(2)
            break
    else:
        raise RuntimeError(f"cannot find the image behind {meta}={ver}")
    # linux-kbuild-6.1 for 6.1; linux-kbuild-<abi> for 6.12.
    hdr = f"linux-headers-{abi}-{flavour}:{deb_arch}"
    kbuild = None
    for dep in depends_of(env, f"linux-headers-{abi}-common", kver) + \
            depends_of(env, hdr, kver):
        m = re.match(r"(linux-kbuild-\S+)", dep)
        if m:
            kbuild = m.group(1)
    if kbuild is None:
        raise RuntimeError(f"no linux-kbuild dependency for {abi}")
    return abi, kver, kbuild


class ArchiveMissing(RuntimeError):
    """The archive's index lists a package whose file its pool does not serve
    (404): not ours to fix, like an index that fails verification."""


def _locate(env, specs):
    """{spec: (urls, Filename, SHA256, architecture)} of name[:arch]=version
    SPECS, from apt-cache's binary cache: the archive URLs that carry the
    version (madison) and the file's record (show)."""
    urls = {}
    out = run(APT_CACHE + ["madison"] + sorted({s.partition("=")[0] for s in specs}),
              env=env, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = [p.strip() for p in line.split("|")]
        # "pkg[:arch] | version | URL suite/component arch Packages"
        where = parts[2].split() if len(parts) == 3 else []
        if len(where) >= 3:
            urls.setdefault((parts[0].partition(":")[0], parts[1]), []).append(
                (where[0], where[2]))
    out = run(APT_CACHE + ["show"] + list(specs), env=env, capture_output=True,
              text=True).stdout
    records = [dict(line.split(": ", 1) for line in rec.splitlines()
                    if ": " in line and not line.startswith(" "))
               for rec in out.split("\n\n")]
    found = {}
    for spec in specs:
        name, _, ver = spec.partition("=")
        base, _, arch = name.partition(":")
        for f in records:
            if f.get("Package") == base and f.get("Version") == ver and \
                    (not arch or f.get("Architecture") in (arch, "all")) and \
                    "Filename" in f and "SHA256" in f:
                # An index of the file's architecture (any, for "all").
                where = [u for u, a in urls.get((base, ver), [])
                         if f["Architecture"] in ("all", a)]
                if where:
                    found[spec] = (list(dict.fromkeys(where)), f["Filename"], f["SHA256"],
                                   f["Architecture"])
                    break
        else:
            raise RuntimeError(f"apt-cache knows no {spec}")
    return found


def download(env, specs):
    """Download pkg=version files into the shared deb cache; return paths.

    Not `apt-get download`: on this host's lists (eight suites, four
    architectures) each call builds apt's dependency cache again, 8 s of CPU,
    once per target of a cold run.  apt-cache finds the file and its hash in
    its binary cache (0.1 s) and apt-helper fetches and checks it with apt's
    own configuration (proxies, retries)."""
    debs = os.path.join(CACHE, "debs")
    os.makedirs(debs, exist_ok=True)
    paths, missing = [], []
    for spec in specs:
        name, _, ver = spec.partition("=")
        base, _, arch = name.partition(":")
        qver = ver.replace(":", "%3a")
        # apt-get download's names, which the cache already holds.
        pattern = os.path.join(debs, f"{base}_{qver}_{arch or '*'}.deb")
        found = glob.glob(pattern)
        if found:
            paths.append(found[0])
        else:
            missing.append(spec)
    if not missing:
        return paths
    log("udmem-qemu: downloading " + " ".join(missing))
    where = _locate(env, missing)
    for spec in missing:
        urls, filename, sha256, arch = where[spec]
        name, _, ver = spec.partition("=")
        dest = os.path.join(debs, f"{name.partition(':')[0]}_{ver.replace(':', '%3a')}_"
                                  f"{arch}.deb")
        tmp = f"{dest}.{os.getpid()}.{threading.get_ident()}.part"
        errors = []
        for url in urls:
            r = run(["/usr/lib/apt/apt-helper", "download-file", f"{url}/{filename}", tmp,
                     "SHA256:" + sha256], env=env, stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, text=True, check=False)
            if r.returncode == 0 and os.path.exists(tmp):
                os.replace(tmp, dest)
                break
            errors += [line for line in r.stderr.splitlines() if line.startswith("E:")] or \
                [f"E: Failed to fetch {url}/{filename}: apt-helper exit {r.returncode}"]
        else:
            if os.path.exists(tmp):
                os.unlink(tmp)
            log("\n".join(errors))
            gone = [line for line in errors if " 404 " in line]
            if len(gone) == len(urls):
                raise ArchiveMissing(gone[0])
            raise RuntimeError(f"download of {spec} failed: " + " | ".join(errors)[-300:])
        paths.append(dest)
    return paths
