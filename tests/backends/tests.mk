# tests/backends/tests.mk — checks over every backend folder at once (each backend's own
# tests are in tests/backends/<name>/tests.mk):
#   names.t  every global symbol of a backend is dh_<folder>_<what> (or dh_backend_entry),
#            each vtable entry is named after its field (docs/adding-a-backend.md "Names")
TEST_SCRIPTS += tests/backends/names.t
