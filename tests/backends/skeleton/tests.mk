# tests/backends/skeleton/tests.mk — the skeleton backend:
#   out_of_tree.sh  make install PREFIX=<tmp>, then backends/skeleton/ copied elsewhere and
#                   built with pkg-config alone; conformance SKIPs every clause
#   skeleton.sh     the in-tree plugin ($(BUILD)/lib/skeleton/) loads; every clause SKIPs
TEST_SCRIPTS += tests/backends/skeleton/out_of_tree.sh
TEST_SCRIPTS += tests/backends/skeleton/skeleton.sh
