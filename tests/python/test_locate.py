"""Finding locklab-bench and the interposer: the repository's build first, else
an installed tree (`make install`: PREFIX/bin, PREFIX/LIBDIR/locklab) on PATH."""
import pytest

from locklab import bench, preload
from locklab.errors import UsageError


@pytest.fixture
def no_build(monkeypatch, tmp_path):
    """As when the package is pip-installed: no repository build next to it, nothing on PATH."""
    monkeypatch.setattr(bench, "DEFAULT_BENCH", tmp_path / "nobuild" / "locklab-bench")
    monkeypatch.setattr(preload, "DEFAULT_PRELOAD", tmp_path / "nobuild" / "liblocklab-preload.so")
    monkeypatch.delenv("LOCKLAB_BENCH", raising=False)
    monkeypatch.delenv("LOCKLAB_PRELOAD", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))


def install_tree(prefix, libdir):
    exe = prefix / "bin" / "locklab-bench"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    lib = prefix / libdir / "locklab" / "liblocklab-preload.so"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    return exe, lib


@pytest.mark.parametrize("libdir", ["lib", "lib64", "lib/x86_64-linux-gnu"])
def test_installed_tree_on_path(no_build, monkeypatch, tmp_path, libdir):
    exe, lib = install_tree(tmp_path / "prefix", libdir)
    monkeypatch.setenv("PATH", str(exe.parent))
    assert bench.locate() == exe.resolve()
    assert preload.locate() == lib.resolve()


def test_nothing_found_says_where_it_looked(no_build):
    with pytest.raises(UsageError, match="nor on PATH"):
        bench.locate()
    with pytest.raises(UsageError, match="nor installed next to a locklab-bench on PATH"):
        preload.locate()


def test_explicit_paths_win(no_build, monkeypatch, tmp_path):
    exe, lib = install_tree(tmp_path / "prefix", "lib")
    monkeypatch.setenv("PATH", str(exe.parent))
    other, other_lib = install_tree(tmp_path / "other", "lib")
    assert bench.locate(str(other)) == other
    monkeypatch.setenv("LOCKLAB_PRELOAD", str(other_lib))
    assert preload.locate() == other_lib.resolve()
    with pytest.raises(UsageError, match="not found or not executable at"):
        bench.locate(str(tmp_path / "missing"))


def test_relative_path_is_run_from_the_current_directory(fake_bench, tmp_path):
    """--bench ./NAME once became the command "NAME", looked up on PATH (not found)."""
    from conftest import locklab
    exe, env, _ = fake_bench
    p = locklab("sweep", "--locks", "mcs", "--threads", "1", "--runs", "1", "--duration", "0.5", "--out", "out",
                "--bench", f"./{exe.name}", env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
