# tests/layering/tests.mk — the layout's rules, checked on the sources and the build:
#   call_graph.t  calls between the files of a folder run one way (nm on the objects)
#   exports.t     libdevharness.so exports only what include/devharness/ declares
#   base_floor.t  libdh_base.a defines every dh_* symbol it uses (base/ calls nothing above it)
#   includes.t    which room may include which (conformance and bench never include cli, ...)
#   vtable_calls.t  nothing outside runtime/ (and conformance/clauses/abi.c) calls a backend's vtable
#   sizes.t       no product function over 80 lines; runtime/ within one line budget per responsibility
#   cxx_headers.t the public headers compile as C++ (g++, clang++; -Wall -Wextra -Werror)
#   store.t       nothing outside store/ opens the results store (sqlite3.h, sqlite3_open*, sqlite3.connect)
#   config_channel.t  backends are configured through the runtime (ABI 1.6): no setenv( in the command
#                 rooms, no DEVHARNESS_TVM_ in product code outside backends/tvm/
TEST_SCRIPTS += tests/layering/call_graph.t tests/layering/exports.t tests/layering/includes.t \
    tests/layering/vtable_calls.t tests/layering/sizes.t tests/layering/cxx_headers.t tests/layering/store.t \
    tests/layering/caps.t tests/layering/mirror.t tests/layering/type_schema.t tests/layering/base_floor.t \
    tests/layering/config_channel.t
