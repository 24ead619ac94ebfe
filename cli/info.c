/*
 * cli/info.c — `devharness info [--json] [--device SPEC]`: every backend, why one is
 * unavailable, every device with every TVM attribute, and the host's hwloc topology.
 */
#include <getopt.h>
#include <hwloc.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/info.h"
#include "base/text.h"
#include "devharness/devharness.h"

/* printf format: the device-option group's usage, then its help (column 17). */
static const char kInfoUsage[] =
    "usage: devharness info [--json | --list] [--device SPEC] [--timeout SEC] [--plugin PATH]...%s\n"
    "                       [--quiet|--verbose]\n"
    "\n"
    "Lists every backend plugin (and why one is unavailable or was refused), every\n"
    "device, every DeviceAPI attribute (TVM DeviceAttrKind) and the host topology.\n"
    "  --json         machine-readable output on stdout\n"
    "  -l, --list     one line a device: spec, device name, memory; one a backend\n"
    "                 without a device, with the reason\n"
    "  --device SPEC  only this device (e.g. sim:0)\n"
    "  --plugin PATH  only the backends of these plugin files (repeatable, up to 16), as\n"
    "                 conformance --plugin; default: every plugin found\n"
    "  --timeout SEC  seconds a backend may take to answer (default 10): each backend\n"
    "                 is asked in a child process; a question that crashes or blocks\n"
    "                 is shown as an ERROR with the signal or the timeout, the rest\n"
    "                 is asked in a fresh child\n"
    "%s"
    "  -q, --quiet    only the verdict line, 'devharness info: B backends, D devices, U\n"
    "                 without a device, R plugins refused (exit E)' (errors on stderr)\n"
    "  -v, --verbose  the listing with the attributes a device does not report (null),\n"
    "                 then the verdict line (text: on stdout; --json: on stderr, so\n"
    "                 stdout stays JSON)\n"
    "Bytes are shown in KiB/MiB/GiB and kMaxClockRate in MHz, each with TVM's integer.\n"
    "exit: 0 ok, 2 usage error or unknown device, 3 no device: the backend --device names\n"
    "      has none (shown with the reason)\n";

/* Host topology from hwloc: packages, cores, PUs, NUMA nodes and their memory. */
static json_t* host_topology(void) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return json_null();
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return json_null();
  }
  json_t* host = json_object();
  json_object_set_new(host, "packages",
                      json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE)));
  json_object_set_new(host, "cores", json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)));
  json_object_set_new(host, "pus", json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)));
  hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
  const char* model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
  if (model) json_object_set_new(host, "cpu_model", json_string(model));
  json_t* numa = json_array();
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
    char cpus[256];
    hwloc_bitmap_list_snprintf(cpus, sizeof cpus, node->cpuset);
    json_array_append_new(numa, json_pack("{s:i, s:I, s:s}", "os_index", (int)node->os_index,
                                          "memory_bytes", (json_int_t)node->attr->numanode.local_memory,
                                          "cpus", cpus));
  }
  json_object_set_new(host, "numa_nodes", numa);
  hwloc_topology_destroy(topo);
  return host;
}

/* Text from a backend, a library or a peer, escaped for the terminal (base/text.h):
 * printed with "%s" from a buffer of DH_TEXT_BUF bytes, cut after DH_TEXT_SHOW_MAX. */
static const char* tq(json_t* s, char buf[DH_TEXT_BUF]) {
  return dh_text_quote(json_is_string(s) ? json_string_value(s) : "", buf, DH_TEXT_BUF);
}

/* Prints "  <prefix><text>\n" with the whole of text escaped (reasons, refusals). */
static void put_line(const char* prefix, json_t* text) {
  dh_sbuf_t b = {0};
  dh_sbuf_add(&b, prefix);
  dh_sbuf_add_quoted(&b, json_is_string(text) ? json_string_value(text) : "");
  printf("%s\n", dh_sbuf_str(&b));
  free(b.s);
}

/* Attributes in bytes and in kHz (TVM's kMaxClockRate: CUDA's clockRate is kHz,
 * apache/tvm v0.27 src/runtime/cuda/cuda_device_api.cc), shown in human units. */
static int is_bytes_attr(const char* key) {
  return strcmp(key, "total_global_memory") == 0 || strcmp(key, "available_global_memory") == 0 ||
         strcmp(key, "l2_cache_size_bytes") == 0 || strcmp(key, "max_shared_memory_per_block") == 0;
}

/* One attribute's value for a person: bytes in KiB/MiB/GiB and kHz in MHz with the
 * integer after them, the decoded Vulkan version, strings escaped. */
static void format_value(const char* key, json_t* val, json_t* dev, char* out, size_t size) {
  char q[DH_TEXT_BUF];
  const char* decoded = json_string_value(json_object_get(dev, "api_version_text"));
  long long v = json_integer_value(val);
  if (json_is_string(val)) {
    snprintf(out, size, "%s", tq(val, q));
  } else if (json_is_integer(val) && is_bytes_attr(key) && v >= 1024) {
    static const char* const unit[] = {"KiB", "MiB", "GiB", "TiB"};
    double x = (double)v / 1024;
    int u = 0;
    while (x >= 1024 && u < 3) x /= 1024, u++;
    snprintf(out, size, "%.1f %s (%lld bytes)", x, unit[u], v);
  } else if (json_is_integer(val) && strcmp(key, "max_clock_rate") == 0) {
    snprintf(out, size, "%.0f MHz (%lld kHz)", (double)v / 1000, v);
  } else if (json_is_integer(val) && strcmp(key, "api_version") == 0 && decoded) {
    snprintf(out, size, "%s (%lld)", decoded, v);
  } else {
    char* text = json_dumps(val, JSON_ENCODE_ANY);
    snprintf(out, size, "%s", text ? text : "?");
    free(text);
  }
}

/* A device's lines: its spec, its attributes (nulls only with -v), its errors. */
static void print_device(json_t* dev, int verbose) {
  char q[DH_TEXT_BUF], value[DH_TEXT_BUF + 64];
  json_t* ti = json_object_get(dev, "tvm_index");
  printf("  %s", json_string_value(json_object_get(dev, "spec")));
  if (json_is_integer(ti)) printf(" (TVM's index %lld)", (long long)json_integer_value(ti));
  printf("\n");
  const char* key;
  json_t* val;
  size_t hidden = 0;
  json_object_foreach(json_object_get(dev, "attributes"), key, val) {
    if (json_is_null(val) && !verbose) {
      hidden++;
      continue;
    }
    format_value(key, val, dev, value, sizeof value);
    printf("    %-28s %s\n", key, value);
  }
  json_object_foreach(json_object_get(dev, "attribute_errors"), key, val) {
    printf("    %-28s ERROR: %s\n", key, tq(val, q));
  }
  if (hidden) printf("    (%zu attribute%s not reported: -v shows them)\n", hidden, hidden == 1 ? "" : "s");
}

/* A backend's lines: name, caps, functions, then its devices or why it has none. */
static void print_backend(json_t* b, int verbose) {
  char q[DH_TEXT_BUF], q2[DH_TEXT_BUF];
  printf("\nbackend %s (device type %s = %lld)%s%s\n", json_string_value(json_object_get(b, "name")),
         json_string_value(json_object_get(b, "device_type_name")),
         (long long)json_integer_value(json_object_get(b, "device_type")),
         json_is_string(json_object_get(b, "description")) ? ": " : "",
         json_is_string(json_object_get(b, "description")) ? tq(json_object_get(b, "description"), q) : "");
  printf("  caps:");
  size_t c;
  json_t *cap, *fn, *dev;
  json_array_foreach(json_object_get(b, "caps"), c, cap) printf(" %s", json_string_value(cap));
  printf("%s\n", json_array_size(json_object_get(b, "caps")) ? "" : " none");
  if (json_array_size(json_object_get(b, "functions"))) printf("  functions:\n");
  json_array_foreach(json_object_get(b, "functions"), c, fn) {
    json_t* sig = json_object_get(fn, "signature");
    printf("    %-26s %s\n", tq(json_object_get(fn, "name"), q), json_is_string(sig) ? tq(sig, q2) : "(no type schema)");
  }
  if (!json_is_true(json_object_get(b, "available"))) {
    put_line("  unavailable: ", json_object_get(b, "unavailable_reason"));
    return;
  }
  json_array_foreach(json_object_get(b, "devices"), c, dev) print_device(dev, verbose);
}

static void print_text(json_t* root, int verbose) {
  char q[DH_TEXT_BUF];
  json_t* host = json_object_get(root, "host");
  printf("devharness %s (plugin ABI %s)\n", json_string_value(json_object_get(root, "version")),
         json_string_value(json_object_get(root, "plugin_abi")));
  if (json_is_object(host)) {
    json_t* model = json_object_get(host, "cpu_model");
    printf("host: %s; %lld package(s), %lld core(s), %lld PU(s)\n", model ? tq(model, q) : "unknown CPU",
           (long long)json_integer_value(json_object_get(host, "packages")),
           (long long)json_integer_value(json_object_get(host, "cores")),
           (long long)json_integer_value(json_object_get(host, "pus")));
    size_t i;
    json_t* node;
    json_array_foreach(json_object_get(host, "numa_nodes"), i, node) {
      printf("  NUMA node %lld: %.1f GiB, cpus %s\n",
             (long long)json_integer_value(json_object_get(node, "os_index")),
             (double)json_integer_value(json_object_get(node, "memory_bytes")) / (1 << 30),
             json_string_value(json_object_get(node, "cpus")));
    }
  }
  size_t i;
  json_t* b;
  json_array_foreach(json_object_get(root, "backends"), i, b) print_backend(b, verbose);
  json_t* refused = json_object_get(root, "refused_plugins");
  if (json_array_size(refused) > 0) printf("\nrefused plugins:\n");
  json_t* r;
  json_array_foreach(refused, i, r) put_line("  ", r);
}

/* --list: one line a device, "SPEC  NAME  MEMORY  (backend: description)", and one a
 * backend without a device with its reason (clinfo -l, vulkaninfo --summary). */
static void print_list(json_t* root) {
  size_t i, d;
  json_t *b, *dev;
  json_array_foreach(json_object_get(root, "backends"), i, b) {
    char q[DH_TEXT_BUF], mem[96] = "";
    if (json_array_size(json_object_get(b, "devices")) == 0) {
      dh_sbuf_t line = {0};
      dh_sbuf_addf(&line, "%-14s NO DEVICE: ", json_string_value(json_object_get(b, "name")));
      json_t* why = json_object_get(b, "unavailable_reason");
      dh_sbuf_add_quoted(&line, json_is_string(why) ? json_string_value(why) : "no device");
      printf("%s\n", dh_sbuf_str(&line));
      free(line.s);
      continue;
    }
    json_array_foreach(json_object_get(b, "devices"), d, dev) {
      json_t* attrs = json_object_get(dev, "attributes");
      json_t* total = json_object_get(attrs, "total_global_memory");
      if (json_is_integer(total)) format_value("total_global_memory", total, dev, mem, sizeof mem);
      char* paren = strstr(mem, " (");
      if (paren) *paren = '\0';
      json_t* name = json_object_get(attrs, "device_name");
      printf("%-14s %s%s%s\n", json_string_value(json_object_get(dev, "spec")),
             json_is_string(name) ? tq(name, q) : "(no device_name)", mem[0] ? ", " : "", mem);
    }
  }
}

/* --quiet / --verbose: "devharness info: B backends, D devices, U without a device, R
 * plugins refused (exit E)". */
static void say_verdict(json_t* root, FILE* f, int rc) {
  size_t nb = json_array_size(json_object_get(root, "backends")), nd = 0, nu = 0, i;
  json_t* b;
  json_array_foreach(json_object_get(root, "backends"), i, b) {
    size_t n = json_array_size(json_object_get(b, "devices"));
    nd += n;
    nu += n == 0;
  }
  size_t nr = json_array_size(json_object_get(root, "refused_plugins"));
  fprintf(f, "devharness info: %zu backend%s, %zu device%s, %zu without a device, %zu plugin%s refused (exit %d)\n",
          nb, nb == 1 ? "" : "s", nd, nd == 1 ? "" : "s", nu, nr, nr == 1 ? "" : "s", rc);
}

enum { kMaxPlugins = 16 };

typedef struct {
  int as_json, quiet, verbose, list;
  long timeout_s;
  const char* device_spec;
  const char* plugins[kMaxPlugins]; /* --plugin: only these plugins (as conformance's) */
  size_t n_plugins;
} info_opts_t;

/* Parses info's options into *o; DH_EXIT_OK, or the exit code to return (--help: OK
 * with *done set). */
static int parse_opts(int argc, char** argv, info_opts_t* o, int* done) {
  static const struct option kOpts[] = {{"json", no_argument, NULL, 'j'},   {"quiet", no_argument, NULL, 'q'},
                                        {"verbose", no_argument, NULL, 'v'}, {"list", no_argument, NULL, 'l'},
                                        {"device", required_argument, NULL, 'd'},
                                        {"timeout", required_argument, NULL, 't'},
                                        {"plugin", required_argument, NULL, 'p'},
                                        {"help", no_argument, NULL, 'h'},   {NULL, 0, NULL, 0}};
  struct option opts[sizeof kOpts / sizeof kOpts[0] + DH_CMDLINE_MAX_DEVICE_OPTIONS];
  const char* timeout = NULL;
  dh_cmdline_device_options_load_named(argc, argv, "hqvl", kOpts, 'p');
  dh_cmdline_options_with_devices(kOpts, opts, sizeof opts / sizeof opts[0]);
  dh_cmdline_getopt_begin();
  int c, rc = DH_EXIT_OK;
  while ((c = getopt_long(argc, argv, "hqvl", opts, NULL)) != -1) {
    switch (c) {
      case 'j': o->as_json = 1; break;
      case 'q': o->quiet = 1; break;
      case 'v': o->verbose = 1; break;
      case 'l': o->list = 1; break;
      case 'd':
        if (dh_cmdline_set_once("info", "--device", &o->device_spec, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case 't':
        if (dh_cmdline_set_once("info", "--timeout", &timeout, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case 'p':
        if (o->n_plugins == kMaxPlugins) return dh_cmdline_usage_error("info", "--plugin: at most %d", kMaxPlugins);
        if (dh_plugin_load(optarg, NULL) != 0)
          return dh_cmdline_usage_error("info", "--plugin %s: %s", dh_cmdline_quote(optarg), dh_error_message());
        o->plugins[o->n_plugins++] = optarg;
        break;
      case 'h':
        printf(kInfoUsage, dh_cmdline_device_options_usage(), dh_cmdline_device_options_help(17));
        return (*done = 1), DH_EXIT_OK;
      default:
        if (!dh_cmdline_device_option("info", c, optarg, &rc)) return dh_cmdline_bad_option("info", opts, argc, argv);
        if (rc != DH_EXIT_OK) return rc;
    }
  }
  if (dh_cmdline_no_operands("info", argc, argv) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (o->quiet && o->verbose) return dh_cmdline_usage_error("info", "--quiet and --verbose exclude each other");
  if (o->list + o->as_json + o->quiet > 1)
    return dh_cmdline_usage_error("info", "--list, --json and --quiet exclude each other");
  char q[DH_TEXT_BUF];
  if (timeout && dh_cmdline_parse_long(timeout, 1, 86400, &o->timeout_s) != 0)
    return dh_cmdline_usage_error("info", "--timeout %s: expected a whole number of seconds 1..86400",
                                  dh_text_quote(timeout, q, sizeof q));
  return DH_EXIT_OK;
}

/* The whole answer: version, host, every backend (asked in children), refusals. */
static json_t* collect(const info_opts_t* o, const dh_device_list_t* sel) {
  const dh_backend_t* only_backend = o->device_spec ? sel->entries[0].backend : NULL;
  json_t* root = json_object();
  json_object_set_new(root, "version", json_string(DH_VERSION_STRING));
  char abi[32];
  snprintf(abi, sizeof abi, "%d.%d", DH_BACKEND_ABI_MAJOR, DH_BACKEND_ABI_MINOR);
  json_object_set_new(root, "plugin_abi", json_string(abi));
  json_object_set_new(root, "host", host_topology());
  json_t* backends = json_array();
  for (size_t i = 0; i < dh_backend_count(); ++i) {
    const dh_backend_t* b = dh_backend_at(i);
    if (only_backend && b != only_backend) continue;
    json_t* bj = dh_cli_info_backend(b, sel, (int)o->timeout_s);
    if (bj) json_array_append_new(backends, bj);
  }
  json_object_set_new(root, "backends", backends);
  json_t* refused = json_array();
  for (size_t i = 0; i < dh_plugin_refusal_count(); ++i)
    json_array_append_new(refused, dh_cli_info_string(dh_plugin_refusal(i)));
  json_object_set_new(root, "refused_plugins", refused);
  return root;
}

int dh_cli_info(int argc, char** argv) {
  info_opts_t o = {.timeout_s = DH_CLI_INFO_TIMEOUT_S};
  int done = 0, rc = parse_opts(argc, argv, &o, &done);
  if (rc != DH_EXIT_OK || done) return rc;
  dh_cmdline_device_options_end(); /* the backends the values name are found now */
  dh_device_list_t sel;
  /* probed in children: this process never initialises a backend (cli/info.h) */
  dh_device_select_params_t params = {
      .spec = o.device_spec,
      .flags = DH_SELECT_PROBE_IN_CHILD | (o.n_plugins ? DH_SELECT_LOADED_ONLY : 0u),
      .probe_timeout_s = (int)o.timeout_s};
  if (dh_cmdline_select_devices("info", &params, &sel) != DH_EXIT_OK) return DH_EXIT_USAGE;
  json_t* root = collect(&o, &sel);
  if (o.quiet) {
  } else if (o.as_json) {
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
  } else if (o.list) {
    print_list(root);
  } else {
    print_text(root, o.verbose);
  }
  /* the backend --device names has no device: shown with its reason, and exit 3 */
  rc = o.device_spec && sel.entries[0].device.device_id < 0 ? DH_EXIT_NO_DEVICE : DH_EXIT_OK;
  if (o.quiet) { /* a refused plugin or server is an error line, never silent */
    size_t i;
    json_t* r;
    json_array_foreach(json_object_get(root, "refused_plugins"), i, r) {
      char q[DH_TEXT_BUF];
      fprintf(stderr, "devharness info: refused %s\n", tq(r, q));
    }
  }
  if (o.quiet || o.verbose) say_verdict(root, o.quiet || !o.as_json ? stdout : stderr, rc);
  json_decref(root);
  dh_device_list_free(&sel);
  dh_plugins_unload_all();
  return rc;
}
