"""What pyproject.toml cannot say: the bundled maps ship inside the package.

``maps/`` (the demo board and its catalog, the d20 overland map and battle grid) is installed as
``eidomap/maps/``, so that an install that is not editable has them too (``eidomap.bundled_map_path``);
``maps/draw_demo.py``, the source of the demo drawing, stays in the checkout.  The other packages are found
as ``[tool.setuptools.packages.find]`` would find them.
"""

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py


class _BuildPy(build_py):
    def find_package_modules(self, package, package_dir):
        return [] if package == "eidomap.maps" else super().find_package_modules(package, package_dir)


setup(packages=[*find_namespace_packages(include=["eidomap*"]), "eidomap.maps"],
      package_dir={"eidomap.maps": "maps"}, cmdclass={"build_py": _BuildPy})
