# cmdline/cmdline.mk — the command-line room every command builds on (exit codes, option
# helpers, the --device option; cmdline/cmdline.h), linked into the devharness command.
CMDLINE_SRCS := $(sort $(wildcard cmdline/*.c))
CLI_OBJS += $(call obj,$(CMDLINE_SRCS))

# cmdline/script.c runs the Python tools: the venv's Python for compare, history and
# dashboard when the program's own build folder has none (pick_python: a sanitizer build
# sharing the venv). cmdline/py/: the modules every tool may import: dh_args.py
# (one-line argparse errors, exit 2), dh_units.py (Google Benchmark's time units).
$(call obj,cmdline/script.c): CPPFLAGS += -DDH_BUILD_VENV_PYTHON='"$(abspath $(VENV_PY))"'
SHARE_FILES += cmdline/py/dh_args.py cmdline/py/dh_units.py
