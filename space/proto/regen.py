"""Regenerate ``strategy_pb2.py`` from ``strategy.proto``.

Run from anywhere: ``python -m space.proto.regen`` (needs the ``test`` extra: grpcio-tools).
The test suite calls :func:`generate` into a temporary folder and fails when the committed file differs.
"""
from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HEADER = (
    "# Generated from space/proto/strategy.proto; do not edit by hand.\n"
    "# Regenerate with: python -m space.proto.regen\n"
)


def generate(out_dir: pathlib.Path) -> pathlib.Path:
    """Run protoc on strategy.proto into ``out_dir`` and return the path of the module written."""
    # a separate process: protoc's extension crashes a process that has TensorFlow's protobuf loaded
    r = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT}", f"--python_out={out_dir}",
                        str(HERE / "strategy.proto")], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"protoc failed with exit code {r.returncode}: {r.stderr.strip()}")
    path = out_dir / "space" / "proto" / "strategy_pb2.py"
    path.write_text(HEADER + path.read_text())
    return path


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        text = generate(pathlib.Path(tmp)).read_text()
    (HERE / "strategy_pb2.py").write_text(text)
    print(f"wrote {HERE / 'strategy_pb2.py'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
