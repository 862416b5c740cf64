# Formatting: Google style at 100 columns (.clang-format).
#   make format        rewrites every C++ file of the tree in place
# The format_check test (tests/format_check.sh, in make test) fails on a file that differs.
DEBIAN_PACKAGES += clang-format

.PHONY: format
format:
	tests/format_check.sh --fix .
