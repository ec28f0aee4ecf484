"""Make a transformers tokenizer parse responses with a compiled parser.

    from compiler import use_compiled, restore

    patch = use_compiled(tokenizer)          # compiles tokenizer.response_template (disk-cached)
    tokenizer.parse_response(text, prefix=prompt)            # now runs the compiled parser
    tokenizer.get_response_parser(prefix=prompt)             # a compiled streaming parser
    patch.restore()                          # or restore(tokenizer); or `with use_compiled(tok): ...`

Only the instance is patched (two instance attributes shadow the class
methods); other tokenizers of the same class are untouched. The patched
methods keep the signatures of `PreTrainedTokenizerBase.parse_response` and
`get_response_parser` and their behaviour: strings, token ids, batches,
numpy arrays, `schema=` / `response_template=` overrides. Every error case
(no template, `prefix=None`, mismatched batch lengths, a template the
compiler rejects) is delegated to the original method, so it raises exactly
what transformers raises.

Disk cache: a module compiled from a template dict is written to
    <cache dir>/python-<compiler version>-<toolchain fingerprint>/<template sha256>.py
where the cache dir is the `cache_dir=` keyword, else $RESPONSE_TEMPLATE_COMPILER_CACHE,
else ~/.cache/response-template-compiler/. The fingerprint hashes the
compiler's and runtime's own sources, so a changed compiler never reuses
stale output. Files are written atomically (temporary file + os.replace).

This module does not import transformers.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import tempfile
import threading
import types
import warnings
import weakref
from pathlib import Path

from ..version import __version__
from .. import pipeline
from ..frontend import source as sources
from ..resources import PACKAGE_DIR, RUNTIME_DIR

__all__ = [
    "CACHE_ENV",
    "CompiledParsing",
    "cache_path",
    "load_compiled",
    "resolve_cache_dir",
    "restore",
    "use_compiled",
]

CACHE_ENV = "RESPONSE_TEMPLATE_COMPILER_CACHE"
DEFAULT_CACHE_DIR = Path("~") / ".cache" / "response-template-compiler"
MODULE_NAME = "response_template"  # fixed, so generated source depends on the template only

_PATCHED = ("parse_response", "get_response_parser")
_MISSING = object()
_LOCK = threading.Lock()


# --------------------------------------------------------------------------
# Disk cache
# --------------------------------------------------------------------------


def resolve_cache_dir(directory: str | os.PathLike | None = None) -> Path:
    """The cache directory: `directory`, else $RESPONSE_TEMPLATE_COMPILER_CACHE, else the default."""
    if directory is None:
        directory = os.environ.get(CACHE_ENV) or DEFAULT_CACHE_DIR
    return Path(directory).expanduser()


@functools.lru_cache(maxsize=None)
def toolchain_tag() -> str:
    """`python-<version>-<12 hex>`: changes whenever the compiler or runtime sources change."""
    digest = hashlib.sha256()
    roots = [PACKAGE_DIR, RUNTIME_DIR]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".j2") and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(b"\0")
                digest.update(path.read_bytes())
                digest.update(b"\0")
    return f"python-{__version__}-{digest.hexdigest()[:12]}"


def cache_path(template: dict, directory: str | os.PathLike | None = None) -> Path:
    """Where the module compiled from `template` is (or would be) cached."""
    return resolve_cache_dir(directory) / toolchain_tag() / f"{sources.canonical_sha256(template)}.py"


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:16]}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def load_compiled(template: dict, *, cache_dir: str | os.PathLike | None | bool = None) -> types.ModuleType:
    """The parser module for `template`, compiled at most once per toolchain.

    Looks in memory (shared with `compile_template`), then on disk, and only
    then compiles, writing the generated source to the disk cache.
    `cache_dir=False` keeps it in memory only. An unwritable cache directory
    is not an error (the module is still returned; a warning says why).
    Raises `TemplateError` for a template the compiler rejects.
    """
    source = sources.from_dict(template, MODULE_NAME)
    module = pipeline._MODULES.get(source.sha256)
    if cache_dir is False:
        if module is None:
            module = pipeline.compile_template(template, name=MODULE_NAME)
        return module
    path = resolve_cache_dir(cache_dir) / toolchain_tag() / f"{source.sha256}.py"
    if module is not None:
        if getattr(module, "_CACHE_PATHS", None) is None:
            module._CACHE_PATHS = set()
        if path not in module._CACHE_PATHS:  # compiled in memory first: also store it on disk
            if not path.is_file():
                _store(path, module.SOURCE_CODE)
            module._CACHE_PATHS.add(path)
        return module
    with _LOCK:
        module = pipeline._MODULES.get(source.sha256)
        if module is not None:
            return module
        module = _from_disk(path, source)
        if module is None:
            code = pipeline.python_source(source)
            _store(path, code)
            module = pipeline.module_from_code(code, source, str(path) if path.is_file() else None)
        module._CACHE_PATHS = {path}
        pipeline._MODULES[source.sha256] = module
    return module


def _from_disk(path: Path, source: sources.Source) -> types.ModuleType | None:
    try:
        code = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        module = pipeline.module_from_code(code, source, str(path))
    except Exception:  # a truncated or edited file: compile again and overwrite it
        return None
    if getattr(module, "TEMPLATE", None) != source.template:
        return None
    return module


def _store(path: Path, code: str) -> None:
    try:
        _write_atomically(path, code)
    except OSError as error:
        warnings.warn(f"response-template compiler: cannot write the cache file {path}: {error}", stacklevel=3)


# --------------------------------------------------------------------------
# Patching a tokenizer
# --------------------------------------------------------------------------


class _State:
    """Per patched tokenizer: what to parse with, and what to put back."""

    def __init__(self, originals: dict, module, cache_dir):
        self.originals = originals  # name -> previous instance attribute, or _MISSING
        self.module = module  # explicit module, or None: compile tokenizer.response_template
        self.cache_dir = cache_dir
        self.memo: list[tuple[object, object, types.ModuleType]] = []  # (template, snapshot, module)

    def module_for(self, template):
        """The compiled module for a template dict (memoised on identity + equality)."""
        for obj, snapshot, module in self.memo:
            if obj is template and template == snapshot:
                return module
        module = load_compiled(template, cache_dir=self.cache_dir)
        self.memo = [(template, copy.deepcopy(template), module)] + self.memo[:3]
        return module


_STATES: "weakref.WeakKeyDictionary[object, _State]" = weakref.WeakKeyDictionary()


class CompiledParsing:
    """Returned by `use_compiled`: `.restore()` undoes the patch; also a context manager."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    @property
    def module(self) -> types.ModuleType | None:
        """The module that parses when no schema is passed (None if the tokenizer has no template)."""
        state = _STATES.get(self.tokenizer)
        if state is None:
            return None
        if state.module is not None:
            return state.module
        template = getattr(self.tokenizer, "response_template", None)
        return None if template is None else state.module_for(template)

    def restore(self) -> None:
        restore(self.tokenizer)

    def __enter__(self) -> "CompiledParsing":
        return self

    def __exit__(self, *exc_info) -> None:
        self.restore()

    def __repr__(self) -> str:
        patched = self.tokenizer in _STATES
        return f"<CompiledParsing {'active' if patched else 'restored'} on {type(self.tokenizer).__name__}>"


def use_compiled(tokenizer, parser=None, *, cache_dir: str | os.PathLike | None | bool = None) -> CompiledParsing:
    """Make `tokenizer.parse_response` and `tokenizer.get_response_parser` use a compiled parser.

    `parser` is a generated module (anything with `ResponseParser` and
    `parse_response`, e.g. `generated.python.qwen3`), a template dict to
    compile, or None: compile `tokenizer.response_template`, looked up at
    each call (so assigning a new template later takes effect). A `schema=`
    / `response_template=` argument is compiled and used instead. Compiled
    modules are cached on disk (see the module docstring); `cache_dir`
    overrides the directory, `False` disables the disk cache.

    Raises `TemplateError` now if the template to use cannot be compiled.
    Calling it again on a patched tokenizer replaces the parser; `restore`
    always returns to the methods from before the first call.
    """
    _copy_docstrings()
    if isinstance(parser, dict):
        parser = load_compiled(parser, cache_dir=cache_dir)
    elif parser is not None and not (hasattr(parser, "ResponseParser") and hasattr(parser, "parse_response")):
        raise TypeError(
            "use_compiled: `parser` must be a generated parser module (with ResponseParser and parse_response), "
            f"a template dict, or None; got {type(parser).__name__}"
        )
    state = _STATES.get(tokenizer)
    if state is None:
        originals = {name: tokenizer.__dict__.get(name, _MISSING) for name in _PATCHED}
        state = _State(originals, parser, cache_dir)
    else:
        state = _State(state.originals, parser, cache_dir)
    if parser is None:
        template = getattr(tokenizer, "response_template", None)
        if template is not None:
            state.module_for(template)  # compile now: a bad template fails here, not at first use
    _STATES[tokenizer] = state
    # Bound methods of module-level functions (not closures): copy.deepcopy
    # rebinds them, and pickling falls back to the class methods.
    tokenizer.__dict__["parse_response"] = types.MethodType(parse_response, tokenizer)
    tokenizer.__dict__["get_response_parser"] = types.MethodType(get_response_parser, tokenizer)
    return CompiledParsing(tokenizer)


def restore(tokenizer) -> None:
    """Undo `use_compiled`: the tokenizer's methods are what they were before. A no-op if unpatched."""
    state = _STATES.pop(tokenizer, None)
    originals = state.originals if state is not None else {name: _MISSING for name in _PATCHED}
    for name, previous in originals.items():
        current = tokenizer.__dict__.get(name)
        if previous is not _MISSING:
            tokenizer.__dict__[name] = previous
        elif isinstance(current, types.MethodType) and current.__func__ in (parse_response, get_response_parser):
            del tokenizer.__dict__[name]  # ours (also on a copy of a patched tokenizer)


def _original(tokenizer, name):
    """The method `use_compiled` replaced."""
    state = _STATES.get(tokenizer)
    previous = state.originals.get(name, _MISSING) if state is not None else _MISSING
    if previous is not _MISSING:
        return previous
    return getattr(type(tokenizer), name).__get__(tokenizer, type(tokenizer))


def _state(tokenizer) -> _State:
    state = _STATES.get(tokenizer)
    if state is None:  # e.g. a deepcopy of a patched tokenizer: compile its own template
        state = _STATES[tokenizer] = _State({name: _MISSING for name in _PATCHED}, None, None)
    return state


def _module(tokenizer, override):
    """The compiled module to use, or (None, reason) to let the original method decide."""
    state = _state(tokenizer)
    if override is None:
        if state.module is not None:
            return state.module, None
        template = getattr(tokenizer, "response_template", None)
        if template is None:
            return None, None  # the original raises its AttributeError
    else:
        template = override
    if not isinstance(template, dict):
        return None, f"a {type(template).__name__} template is not compiled"
    try:
        return state.module_for(template), None
    except Exception as error:  # TemplateError, or anything the compiler trips on
        return None, f"{type(error).__name__}: {error}"


def _fallback(method, reason, *args, **kwargs):
    result = method(*args, **kwargs)
    if reason:
        warnings.warn(
            f"response-template compiler: {reason}; transformers' interpreter was used instead", stacklevel=3
        )
    return result


def _sequences(tokenizer, value):
    """(texts, batched) the way `PreTrainedTokenizerBase.parse_response` reads a response."""
    if isinstance(value, str):
        return [value], False
    if isinstance(value, (list, tuple)) and (not value or isinstance(value[0], str)):
        return list(value), True
    decoded = tokenizer.decode(value)
    return ([decoded], False) if isinstance(decoded, str) else (list(decoded), True)


def parse_response(self, response, schema=None, *, prefix=None, tools=None):
    """`tokenizer.parse_response`, running a compiled parser (installed by `use_compiled`)."""
    original = _original(self, "parse_response")
    if prefix is None:
        return original(response, schema, prefix=prefix, tools=tools)  # raises as transformers does
    module, reason = _module(self, schema)
    if module is None:
        return _fallback(original, reason, response, schema, prefix=prefix, tools=tools)
    if isinstance(response, str) and isinstance(prefix, str):  # the common case
        return module.parse_response(response, prefix=prefix, tools=tools)
    texts, batched = _sequences(self, response)
    if isinstance(prefix, (list, tuple)) and not prefix:
        prefixes, prefix_batched = [""], False  # an empty list opts out, for every response
    else:
        prefixes, prefix_batched = _sequences(self, prefix)
    if not prefix_batched:
        prefixes = prefixes * len(texts)
    elif len(prefixes) != len(texts):
        return original(response, schema, prefix=prefix, tools=tools)  # raises the length ValueError
    messages = module.parse_response(texts, prefix=prefixes, tools=tools)
    return messages if batched else messages[0]


def get_response_parser(self, response_template=None, *, prefix=None, tools=None):
    """`tokenizer.get_response_parser`, returning a compiled streaming parser (installed by `use_compiled`)."""
    original = _original(self, "get_response_parser")
    if prefix is None:
        return original(response_template, prefix=prefix, tools=tools)  # raises as transformers does
    module, reason = _module(self, response_template)
    if module is None:
        return _fallback(original, reason, response_template, prefix=prefix, tools=tools)
    text = prefix if isinstance(prefix, str) else self.decode(prefix)
    if not isinstance(text, str):
        return original(response_template, prefix=prefix, tools=tools)  # raises: a batch is not one prefix
    return module.ResponseParser(text, tools=tools)


@functools.lru_cache(maxsize=None)
def _copy_docstrings() -> None:
    """Give the patched methods transformers' docstrings and annotations (same signatures), when importable."""
    try:
        from transformers.tokenization_utils_base import PreTrainedTokenizerBase
    except Exception:  # pragma: no cover - transformers missing or broken
        return
    for function in (parse_response, get_response_parser):
        reference = getattr(PreTrainedTokenizerBase, function.__name__, None)
        if reference is None:
            continue
        function.__annotations__ = dict(getattr(reference, "__annotations__", {}))
        if reference.__doc__:
            function.__doc__ = reference.__doc__ + "\n\n(Patched by compiler.use_compiled: runs a compiled parser.)"
