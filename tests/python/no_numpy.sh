#!/bin/sh
# Stands in for python3 where no interpreter with numpy was found.
echo "skipped: no python3 with numpy (Debian: python3-numpy)"
exit 77
