# tests/backends/skeleton/tests.mk — the skeleton backend:
#   out_of_tree.sh  make install PREFIX=<tmp>, then backends/skeleton/ copied elsewhere and
#                   built with pkg-config alone; conformance SKIPs every clause
#   skeleton.sh     the in-tree plugin ($(BUILD)/lib/skeleton/) loads; every clause SKIPs
TEST_SCRIPTS += tests/backends/skeleton/out_of_tree.sh
#   side_by_side.sh two renamed copies built out of tree load at once (device types
#                   assigned from 64..127); a type out of range is refused naming the file
TEST_SCRIPTS += tests/backends/skeleton/side_by_side.sh
TEST_SCRIPTS += tests/backends/skeleton/skeleton.sh
