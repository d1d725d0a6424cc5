#!/usr/bin/env python3
"""opcode_table.py -- the README's table of the device's opcodes, from the
X-macro opcode list of src/gpudb_device.h (the one table the expression
compiler, the CPU path and the device share).

  python3 test/opcode_table.py            print the table (markdown)
  python3 test/opcode_table.py --write    replace the table in README.md
  python3 test/opcode_table.py --check    exit 1 when README.md's table
                                          differs from the opcode list
The table lies between the README lines '<!-- opcode table -->' and
'<!-- end opcode table -->'.
"""
import re
import sys

HEADER = "src/gpudb_device.h"
README = "README.md"
BEGIN = "<!-- opcode table -->"
END = "<!-- end opcode table -->"


def table():
    text = open(HEADER).read()
    start = text.index("#define GDB_OPCODE_LIST(X)")
    rows = re.findall(r'X\((\w+),\s*(-?\d+),\s*(\d),\s*"((?:[^"\\]|\\.)*)"\)',
                      text[start:text.index("typedef enum GdbOpcode", start)])
    if not rows:
        sys.exit("opcode_table.py: no opcodes found in " + HEADER)
    out = ["| opcode | stack effect | can raise | what it does |",
           "|---|---|---|---|"]
    for name, effect, raises, doc in rows:
        out.append("| `%s` | %s | %s | %s |" % (name, effect,
                                                  "yes" if raises == "1" else "no",
                                                  doc.replace("|", "\\|")))
    return "\n".join(out) + "\n"


def main():
    want = table()
    if len(sys.argv) == 1:
        sys.stdout.write(want)
        return
    readme = open(README).read()
    if BEGIN not in readme or END not in readme:
        sys.exit("opcode_table.py: %s has no %s ... %s section" % (README, BEGIN, END))
    head, rest = readme.split(BEGIN, 1)
    have, tail = rest.split(END, 1)
    if sys.argv[1] == "--write":
        open(README, "w").write(head + BEGIN + "\n" + want + END + tail)
    elif sys.argv[1] == "--check":
        if have.strip() != want.strip():
            sys.exit("opcode_table.py: README.md's opcode table differs from %s; "
                     "run python3 test/opcode_table.py --write" % HEADER)
        print("opcode_table.py: README.md lists the %d opcodes" % (want.count("\n") - 2))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
