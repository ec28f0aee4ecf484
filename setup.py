"""The wheel carries the bundled templates (templates_src/, with their samples
and coverage notes) inside the package, as compiler/_bundled/: an installed
compiler finds them there (compiler/resources.py). Everything else is in
pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithTemplates(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "compiler" / "_bundled"
        if target.exists():
            shutil.rmtree(target)
        source = Path(__file__).resolve().parent / "templates_src"
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithTemplates})
