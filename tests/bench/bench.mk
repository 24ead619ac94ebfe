# tests/bench/bench.mk — tests of the benchmark side (bench/).
$(eval $(call dh_test,bench_gbench,tests/bench/test_gbench.c bench/gbench.cc,-lbenchmark -lstdc++ -ljansson -lcmocka))
TEST_SCRIPTS += tests/bench/bench_cli.sh
