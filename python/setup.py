"""The wheel's tag. Everything else is in pyproject.toml.

The package loads libepdkit with ctypes: it has no CPython extension
module and depends on no CPython ABI, so one wheel serves every
Python 3 on a platform. setuptools would tag it for the interpreter that
built it (cp311-cp311), because it carries a compiled library; this
tags it py3-none-PLATFORM instead (`auditwheel repair` then makes the
platform manylinux). setuptools-rust builds on this command class.

Licensed under MIT OR Apache-2.0.
"""

from typing import Tuple

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel


class PlatformWheel(bdist_wheel):  # type: ignore[misc]
    """A wheel for every Python 3 on this platform."""

    def get_tag(self) -> Tuple[str, str, str]:
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(cmdclass={"bdist_wheel": PlatformWheel})
