# tests/backends/tests.mk — tests/backends/call_graph.t: calls between the files of every
# backend folder, and of runtime/ and cli/, run one way (no cycle in the file graph of
# the objects' symbols, read with nm).
TEST_SCRIPTS += tests/backends/call_graph.t
