#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every errno and option that the tables of Documentation/rds_doca.rst
name must be exercised somewhere under tests/.

A table is a ``.. list-table::`` block.  The names checked are those
written as ``NAME`` in a table: errno values (E...) and options, flags,
ioctls and option levels (RDS_..., SO_..., SOL_..., MSG_..., SIOC...,
FIO...).  A name counts as tested when a test source (C, shell or Python
under tests/) uses it as a word.  Prints TAP, one check a name, and ends
with "N passed, N failed"; exits 1 if any name is untested.

usage: scripts/check-doc-tests.py [-q] [DOC [TESTS-DIR]]
  -q  print only the failures and the closing line
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if a != '-q']
QUIET = len(ARGS) != len(sys.argv) - 1
DOC = ARGS[0] if ARGS else os.path.join(TOP, 'Documentation', 'rds_doca.rst')
TESTS = ARGS[1] if len(ARGS) > 1 else os.path.join(TOP, 'tests')
NAME = re.compile(r'``((?:E[A-Z0-9]+|(?:RDS|SO|SOL|MSG|SIOC|FIO)[A-Z0-9_]*))``')
SOURCES = ('.c', '.h', '.sh', '.py')


def table_names(path):
    """Names in the list-tables of @path, with the line of their first use."""
    names = {}
    in_table = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if line.startswith('.. list-table::'):
                in_table = True
                continue
            if in_table and line.strip() and not line[0].isspace():
                in_table = False
            if in_table:
                for name in NAME.findall(line):
                    names.setdefault(name, n)
    return names


def test_words(top):
    """Every word of the test sources under @top."""
    words = set()
    for root, _dirs, files in os.walk(top):
        for fname in files:
            if not fname.endswith(SOURCES) and not os.access(
                    os.path.join(root, fname), os.X_OK):
                continue
            try:
                with open(os.path.join(root, fname), encoding='utf-8') as f:
                    words.update(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', f.read()))
            except (UnicodeDecodeError, OSError):
                continue	# a built binary
    return words


def main():
    names = table_names(DOC)
    words = test_words(TESTS)
    passed = failed = 0
    if not QUIET:
        print('TAP version 13')
    if not names:
        failed += 1
        print(f'not ok 1 - {DOC}: no names found in its tables')
    for i, (name, line) in enumerate(sorted(names.items()), 1):
        if name in words:
            passed += 1
            if not QUIET:
                print(f'ok {i} - {name} (rds_doca.rst:{line}) is tested')
        else:
            failed += 1
            print(f'not ok {i} - {name} (rds_doca.rst:{line}) is tested')
            print(f'# no test under {os.path.relpath(TESTS, TOP)} names {name}')
    print(f'errnos and options of rds_doca.rst\'s tables tested: '
          f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
