/*
 * tests/backends/tvm/tvmlib_none.c — a shared library that registers nothing in
 * tvm-ffi's global table: `--tvm-lib` refuses it ("registers no device_api.<name>").
 */
int tvmlib_none_answer(void);
int tvmlib_none_answer(void) { return 42; }
