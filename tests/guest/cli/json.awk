# SPDX-License-Identifier: GPL-2.0 OR MIT
# json.awk: a strict JSON parser for busybox awk, so the cli suite can read
# `udmem list --json` as a script would.  It reads one JSON text and prints
# one line per scalar, "PATH<TAB>VALUE": PATH is built from [index] and
# .key steps ("[0].name"), VALUE is the decoded string, the number as
# written, true, false or null (strings are printed with a leading '"' so
# that the string "null" and null differ).  Anything that is not JSON
# (a missing comma, a bad escape, trailing text) prints
# "json.awk: ERROR at offset N" on stderr and exits 1.

function fail(why) {
	printf "json.awk: %s at offset %d\n", why, pos > "/dev/stderr"
	bad = 1
	exit 1
}

function peek() { return substr(text, pos, 1) }

function skip_ws(c) {
	for (;;) {
		c = peek()
		if (c == " " || c == "\t" || c == "\n" || c == "\r")
			pos++
		else
			return
	}
}

function expect(s) {
	if (substr(text, pos, length(s)) != s)
		fail("expected '" s "'")
	pos += length(s)
}

function hexval(h, i, v, d) {
	v = 0
	for (i = 1; i <= 4; i++) {
		d = index("0123456789abcdef", tolower(substr(h, i, 1)))
		if (d == 0)
			fail("bad \\u escape")
		v = v * 16 + d - 1
	}
	return v
}

function parse_string(out, c, e, v) {
	expect("\"")
	out = ""
	for (;;) {
		c = peek()
		if (c == "")
			fail("unterminated string")
		if (c == "\"") {
			pos++
			return out
		}
		if (c < " ")
			fail("control character in string")
		if (c != "\\") {
			out = out c
			pos++
			continue
		}
		e = substr(text, pos + 1, 1)
		pos += 2
		if (e == "\"" || e == "\\" || e == "/")
			out = out e
		else if (e == "n")
			out = out "\n"
		else if (e == "t")
			out = out "\t"
		else if (e == "r")
			out = out "\r"
		else if (e == "b")
			out = out "\b"
		else if (e == "f")
			out = out "\f"
		else if (e == "u") {
			v = hexval(substr(text, pos, 4))
			pos += 4
			out = out (v < 128 ? sprintf("%c", v) : "?")
		} else
			fail("bad escape")
	}
}

function parse_number(start, s) {
	start = pos
	s = substr(text, pos)
	if (!match(s, /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/))
		fail("bad value")
	pos += RLENGTH
	return substr(text, start, RLENGTH)
}

function parse_value(path, c, n, key) {
	skip_ws()
	c = peek()
	if (c == "{") {
		pos++
		skip_ws()
		if (peek() == "}") {
			pos++
			return
		}
		for (;;) {
			skip_ws()
			key = parse_string()
			if ((path SUBSEP key) in seen)
				fail("duplicate key '" key "'")
			seen[path SUBSEP key] = 1
			skip_ws()
			expect(":")
			parse_value(path "." key)
			skip_ws()
			c = peek()
			pos++
			if (c == "}")
				return
			if (c != ",")
				fail("expected ',' or '}'")
		}
	}
	if (c == "[") {
		pos++
		skip_ws()
		if (peek() == "]") {
			pos++
			return
		}
		for (n = 0;; n++) {
			parse_value(path "[" n "]")
			skip_ws()
			c = peek()
			pos++
			if (c == "]")
				return
			if (c != ",")
				fail("expected ',' or ']'")
		}
	}
	if (c == "\"") {
		printf "%s\t\"%s\n", path, parse_string()
		return
	}
	if (substr(text, pos, 4) == "true" || substr(text, pos, 4) == "null") {
		printf "%s\t%s\n", path, substr(text, pos, 4)
		pos += 4
		return
	}
	if (substr(text, pos, 5) == "false") {
		printf "%s\tfalse\n", path
		pos += 5
		return
	}
	printf "%s\t%s\n", path, parse_number()
}

{ text = text $0 "\n" }

END {
	if (bad)
		exit 1
	pos = 1
	parse_value("")
	skip_ws()
	if (pos <= length(text))
		fail("trailing text")
}
