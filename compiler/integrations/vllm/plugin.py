"""The plugin as a file, for `--tool-parser-plugin /path/to/plugin.py` (vLLM imports a
path without its package, so this file imports the package by name, which registers)."""

import compiler.integrations.vllm  # noqa: F401
