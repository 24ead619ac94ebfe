# tests/backends/tests.mk — checks over every backend folder: tests/backends/call_graph.t
# (no call cycle between the files of one backend, from the objects' symbols).
TEST_SCRIPTS += tests/backends/call_graph.t
