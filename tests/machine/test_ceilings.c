/*
 * tests/machine/test_ceilings.c — machine/ceilings.c: PCIe payload bandwidth per generation
 * (8b/10b for Gen1-2, 128b/130b for Gen3-5, 242B/256B FLIT for Gen6), the host link of a
 * PCI function read from a fake sysfs tree ($DEVHARNESS_SYSFS_ROOT: current and max link
 * speed and width of the function, max of its upstream port), bad bus ids and missing
 * functions refused with a reason, and the ceiling table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "machine/ceilings.h"

static char g_root[256];

static void put(const char* dir, const char* name, const char* text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void mkdirs(const char* path) {
  char p[512];
  snprintf(p, sizeof p, "%s", path);
  for (char* s = p + 1; *s; ++s)
    if (*s == '/') {
      *s = '\0';
      mkdir(p, 0755);
      *s = '/';
    }
  mkdir(p, 0755);
}

/* A function under an upstream port, linked from bus/pci/devices/<id> as sysfs does. */
static void fake_function(const char* id, const char* port_speed, const char* port_width, const char* max_speed,
                          const char* max_width, const char* cur_speed, const char* cur_width) {
  char port[320], fn[400], link[512], target[512];
  snprintf(port, sizeof port, "%s/devices/pci0000:00/0000:00:01.0", g_root);
  snprintf(fn, sizeof fn, "%s/%s", port, id);
  mkdirs(fn);
  if (port_speed) put(port, "max_link_speed", port_speed);
  if (port_width) put(port, "max_link_width", port_width);
  put(fn, "max_link_speed", max_speed);
  put(fn, "max_link_width", max_width);
  put(fn, "current_link_speed", cur_speed);
  put(fn, "current_link_width", cur_width);
  snprintf(link, sizeof link, "%s/bus/pci/devices", g_root);
  mkdirs(link);
  snprintf(link, sizeof link, "%s/bus/pci/devices/%s", g_root, id);
  snprintf(target, sizeof target, "../../../devices/pci0000:00/0000:00:01.0/%s", id);
  unlink(link);
  assert_int_equal(symlink(target, link), 0);
}

static void test_generations(void** state) {
  (void)state;
  int gen = 0;
  const char* enc = NULL;
  assert_float_equal(dh_machine_pcie_gbps(2.5, 16, &gen, &enc), 4.0, 1e-9);
  assert_int_equal(gen, 1);
  assert_string_equal(enc, "8b/10b");
  assert_float_equal(dh_machine_pcie_gbps(5.0, 8, &gen, &enc), 4.0, 1e-9);
  assert_int_equal(gen, 2);
  assert_float_equal(dh_machine_pcie_gbps(16.0, 16, &gen, &enc), 16.0 * 16 * 128 / 130 / 8, 1e-9);
  assert_int_equal(gen, 4);
  assert_string_equal(enc, "128b/130b");
  assert_float_equal(dh_machine_pcie_gbps(32.0, 16, &gen, &enc), 63.015, 1e-3); /* Gen5 x16 */
  assert_int_equal(gen, 5);
  assert_float_equal(dh_machine_pcie_gbps(64.0, 16, &gen, &enc), 64.0 * 16 * 242 / 256 / 8, 1e-9);
  assert_int_equal(gen, 6);
  assert_string_equal(enc, "242B/256B FLIT");
  assert_float_equal(dh_machine_pcie_gbps(12.0, 16, NULL, NULL), 0, 0); /* no PCIe rate */
  assert_float_equal(dh_machine_pcie_gbps(32.0, 0, NULL, NULL), 0, 0);
}

/* An idle GPU's link trains down (current Gen1); the ceiling is what it trains to under
 * load: the lower of the function's and its upstream port's maximum. */
static void test_sysfs_link(void** state) {
  (void)state;
  fake_function("0000:3b:00.0", "32.0 GT/s PCIe\n", "16\n", "32.0 GT/s PCIe\n", "16\n", "2.5 GT/s PCIe\n", "16\n");
  dh_machine_pcie_link_t l;
  char why[512] = "";
  assert_int_equal(dh_machine_pcie_link_read("0000:3b:00.0", &l, why, sizeof why), 0);
  assert_int_equal(l.gen, 5);
  assert_float_equal(l.gbps, 63.015, 1e-3);
  assert_float_equal(l.cur_gts, 2.5, 1e-9);
  assert_int_equal(l.cur_width, 16);
  assert_float_equal(l.host_gts, 32.0, 1e-9);
  /* a Gen5 device in a Gen4 x8 slot: Gen4 x8 */
  fake_function("0000:3c:00.0", "16.0 GT/s PCIe\n", "8\n", "32.0 GT/s PCIe\n", "16\n", "16.0 GT/s PCIe\n", "8\n");
  assert_int_equal(dh_machine_pcie_link_read("0000:3c:00.0", &l, why, sizeof why), 0);
  assert_int_equal(l.gen, 4);
  assert_float_equal(l.gbps, 16.0 * 8 * 128 / 130 / 8, 1e-9);
}

static void test_sysfs_refusals(void** state) {
  (void)state;
  dh_machine_pcie_link_t l;
  char why[512] = "";
  assert_int_equal(dh_machine_pcie_link_read("../../etc", &l, why, sizeof why), -1);
  assert_non_null(strstr(why, "is not dddd:bb:dd.f"));
  assert_int_equal(dh_machine_pcie_link_read("0000:99:00.0", &l, why, sizeof why), -1);
  assert_non_null(strstr(why, "no such PCI function in sysfs"));
  fake_function("0000:3d:00.0", NULL, NULL, "Unknown\n", "0\n", "Unknown\n", "0\n"); /* a virtual function */
  assert_int_equal(dh_machine_pcie_link_read("0000:3d:00.0", &l, why, sizeof why), -1);
  assert_non_null(strstr(why, "no PCIe link rate"));
}

static void test_table(void** state) {
  (void)state;
  assert_null(dh_machine_ceiling_get("sim:0", DH_MACHINE_DIR_H2D));
  dh_machine_ceiling_set("sim:0", DH_MACHINE_DIR_H2D, 12.5, "host memcpy %d", 1);
  dh_machine_ceiling_set("sim:0", DH_MACHINE_DIR_D2D, 0, "unknown: %s", "why");
  const dh_machine_ceiling_t* c = dh_machine_ceiling_get("sim:0", dh_machine_dir_index("h2d"));
  assert_non_null(c);
  assert_float_equal(c->gbps, 12.5, 0);
  assert_string_equal(c->what, "host memcpy 1");
  c = dh_machine_ceiling_get("sim:0", DH_MACHINE_DIR_D2D);
  assert_float_equal(c->gbps, 0, 0);
  assert_string_equal(c->what, "unknown: why");
  assert_int_equal(dh_machine_dir_index("sideways"), -1);
  char what[256];
  setenv("DEVHARNESS_BENCH_MEMCPY_MIB", "4", 1);
  double m = dh_machine_host_memcpy_gbps(what, sizeof what);
  assert_true(m > 0.01 && m < 10000);
  assert_non_null(strstr(what, "4 MiB"));
}

int main(void) {
  snprintf(g_root, sizeof g_root, "/tmp/dh-sysfs-%d", (int)getpid());
  mkdirs(g_root);
  setenv("DEVHARNESS_SYSFS_ROOT", g_root, 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_generations),
      cmocka_unit_test(test_sysfs_link),
      cmocka_unit_test(test_sysfs_refusals),
      cmocka_unit_test(test_table),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[320];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
  if (system(cmd) != 0) rc = rc ? rc : 1;
  return rc;
}
