"""``agrag-lab lab``: start JupyterLab on the workshop notebooks, their indexes prepared first.

The indexes and the notebooks' environment come from :mod:`agrag_lab.lab`; this module starts the server:
a working copy of the notebooks (so JupyterLab's autosaves never write outputs into the tracked ones, see
:func:`working_copy`), a token that never goes on a command line (:func:`lab_env`), 127.0.0.1 only.

Examples
--------
From a shell (``make lab`` does this)::

    agrag-lab lab          # prints http://127.0.0.1:PORT/lab/tree/notebooks/01_quickstart.ipynb?token=...
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab.cli_options import read_token_file
from agrag_lab.errors import ServiceError
from agrag_lab.extras import require
from agrag_lab.lab import (
    DEFAULT_MUSIQUE_QUESTIONS,
    MUSIQUE_ENV,
    WORKSHOP_ENV,
    kernel_env,
    musique_questions,
    prepare_musique,
    prepare_workshop,
    print_progress,
    root_folder,
    workshop_path,
)
from agrag_lab.notebook_inputs import INDEX_ENV
from agrag_lab.processes import free_port, stop_process

if TYPE_CHECKING:
    from agrag_lab.cli_options import Subcommands


__all__ = ["QUIET_SETTINGS", "cmd_lab", "lab_command", "lab_env", "lab_url", "quiet_settings", "register", "wait_ready", "working_copy"]


def lab_url(port: int, token: str, path: str = "lab") -> str:
    """The URL of a JupyterLab page, with its token.

    Examples
    --------
    >>> lab_url(8888, "abc", "lab/tree/notebooks/01_quickstart.ipynb")
    'http://127.0.0.1:8888/lab/tree/notebooks/01_quickstart.ipynb?token=abc'
    """
    return f"http://127.0.0.1:{port}/{path.lstrip('/')}?token={token}"


def lab_command(*, port: int, root_dir: str | os.PathLike[str], extra: Sequence[str] = ()) -> list[str]:
    """The command that starts JupyterLab on 127.0.0.1, serving ``root_dir``.

    The token is not part of it: the process list is readable by every local
    user, and the token runs code through the kernels. Pass it in the
    environment (:func:`lab_env`). It never opens a browser and never checks
    for updates, news or PyPI (offline machines). As root (a container), it
    passes ``--allow-root``, which JupyterLab otherwise requires.

    Examples
    --------
    >>> any("token" in part.lower() for part in lab_command(port=8888, root_dir="."))
    False
    """
    as_root = ["--allow-root"] if sys.platform != "win32" and os.geteuid() == 0 else []
    return [
        sys.executable, "-m", "jupyterlab",
        "--ip=127.0.0.1", f"--port={port}", "--port-retries=0", "--no-browser",
        f"--ServerApp.root_dir={Path(root_dir).resolve()}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=",
        "--LabApp.extension_manager=readonly", *as_root, *extra,
    ]


def lab_env(token: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with the JupyterLab token in ``JUPYTER_TOKEN``.

    JupyterLab reads its token from there; an environment is readable only by
    its user (``/proc/PID/environ`` is mode 400), a command line by everyone.

    Examples
    --------
    >>> lab_env("abc", {"PATH": "/bin"})
    {'PATH': '/bin', 'JUPYTER_TOKEN': 'abc'}
    """
    if not token:
        raise ServiceError("the JupyterLab token is empty; set JUPYTER_TOKEN or pass --token-file")
    merged = dict(os.environ if env is None else env)
    merged.pop("JUPYTER_TOKEN_FILE", None)  # JupyterLab would read the file first otherwise
    merged["JUPYTER_TOKEN"] = token
    return merged


def wait_ready(port: int, token: str, *, timeout: float = 120.0, process: subprocess.Popen[Any] | None = None) -> None:
    """Wait until the server on ``port`` answers ``/api/status``.

    Raises
    ------
    ServiceError
        The server exited or did not answer within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    url = lab_url(port, token, "api/status")
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise ServiceError(f"JupyterLab exited with code {process.returncode} before it was ready; see its log")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    raise ServiceError(f"JupyterLab did not answer on 127.0.0.1:{port} within {timeout:g} s")


def working_copy(source: str | os.PathLike[str], target: str | os.PathLike[str], *, fresh: bool = False) -> list[Path]:
    """Copy the notebooks of ``source`` into ``target`` (the folder JupyterLab serves); return the copies made.

    JupyterLab autosaves what it serves; serving a copy keeps the tracked
    notebooks free of outputs. A copy you have used (it differs from what was
    copied) is kept, even when the tracked notebook changed, unless ``fresh``;
    an untouched copy follows the tracked notebook. What was copied is
    remembered in ``target/.copied.json`` (a hash per notebook).

    Examples
    --------
    >>> import tempfile
    >>> src, dst = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp()) / "notebooks"
    >>> _ = (src / "01.ipynb").write_text("{}")
    >>> [p.name for p in working_copy(src, dst)], working_copy(src, dst)
    (['01.ipynb'], [])
    >>> _ = (src / "01.ipynb").write_text('{"new": 1}')     # the tracked notebook changed
    >>> [p.name for p in working_copy(src, dst)]            # the untouched copy follows it
    ['01.ipynb']
    >>> _ = (dst / "01.ipynb").write_text('{"outputs": 1}')  # you ran it: your copy is kept
    >>> _ = (src / "01.ipynb").write_text('{"newer": 1}')
    >>> working_copy(src, dst), (dst / "01.ipynb").read_text()
    ([], '{"outputs": 1}')
    """
    import hashlib
    import json

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    source, target = Path(source), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    record = target / ".copied.json"
    try:
        copied: dict[str, str] = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        copied = {}
    made = []
    for notebook in sorted(source.glob("*.ipynb")):
        copy = target / notebook.name
        untouched = copy.exists() and copied.get(notebook.name) == digest(copy)
        if fresh or not copy.exists() or (untouched and digest(notebook) != copied.get(notebook.name)):
            copy.write_bytes(notebook.read_bytes())
            copied[notebook.name] = digest(copy)
            made.append(copy)
    record.write_text(json.dumps(copied, indent=1), encoding="utf-8")
    return made


def cmd_lab(args: argparse.Namespace) -> int:
    """Prepare the indexes, start JupyterLab, print the URL with its token, wait."""
    require("lab", feature="agrag-lab lab")  # before minutes of index preparation
    given = _given_index(args.index)
    musique: Path | None = None
    questions = musique_questions(args.musique_questions)
    if given is not None:  # the notebooks open this index (INDEX None reads $AGRAG_INDEX): nothing bundled is built
        workshop = workshop_path(args.workshop_index).resolve()
        print_progress(f"the notebooks open {given} (read-only); their INDEX parameter overrides it")
    else:
        workshop = prepare_workshop(args.workshop_index, log=print_progress).resolve()
        if not args.no_musique:
            musique = prepare_musique(args.musique_index, questions=questions, log=print_progress).resolve()
    if args.prepare_only:
        print(f"indexes ready: workshop {workshop}" + (f", MuSiQue {musique}" if musique else ""))
        return 0
    env = kernel_env(workshop, musique, questions=questions)
    if given is not None:
        env[INDEX_ENV] = str(given)
    port = args.port or free_port()
    # the token never goes on a command line (every local user can read the process list)
    if args.token_file is not None:
        token = read_token_file(args.token_file)
    else:
        token = os.environ.get("JUPYTER_TOKEN") or secrets.token_hex(24)
    # JupyterLab serves a working copy (.agrag/lab/notebooks): its autosaves never touch tracked files
    root = root_folder() / ".agrag" / "lab"
    source = Path(args.notebooks) if Path(args.notebooks).is_absolute() else root_folder() / args.notebooks
    working_copy(source, root / "notebooks", fresh=args.fresh)
    settings = quiet_settings(root / ".settings")
    print_progress(f"serving working copies of {source} in {root / 'notebooks'} (--fresh copies them again)")
    process = subprocess.Popen(lab_command(port=port, root_dir=root, extra=[f"--LabApp.user_settings_dir={settings}"]),
                               env=lab_env(token, env), cwd=root)
    try:
        wait_ready(port, token, process=process)
        first = Path("notebooks") / "01_quickstart.ipynb"
        page = f"lab/tree/{first.as_posix()}" if (root / first).is_file() else "lab"
        print(f"JupyterLab is running on 127.0.0.1:{port} (Ctrl-C stops it). Open:", flush=True)
        print(lab_url(port, token, page), flush=True)
        return process.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        stop_process(process, timeout=20)


#: JupyterLab's own settings for the workbench: no news, no update checks (an offline workshop machine;
#: its notice covered the corner of the first widget).
QUIET_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def quiet_settings(folder: str | os.PathLike[str]) -> Path:
    """A JupyterLab user-settings folder with news and update checks off; a setting already there is kept.

    Examples
    --------
    >>> import json, tempfile
    >>> folder = quiet_settings(tempfile.mkdtemp())
    >>> json.loads((folder / next(iter(QUIET_SETTINGS))).read_text())["fetchNews"]
    'false'
    """
    import json

    root = Path(folder)
    for name, values in QUIET_SETTINGS.items():
        path = root / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values), encoding="utf-8")
    return root


def _given_index(index: str | None) -> Path | None:
    """The folder of ``agrag-lab lab --index PATH``, checked to hold an index (never built into or written)."""
    if index is None:
        return None
    from agrag_lab.notebook_inputs import index_folder

    return index_folder(index).resolve()


def register(subparsers: Subcommands) -> None:
    """Add ``agrag-lab lab`` to the CLI (called by :func:`agrag_lab.cli.build_parser`)."""
    p = subparsers.add_parser("lab", help="prepare the workshop indexes and start JupyterLab (127.0.0.1, token)")
    p.add_argument("--index", default=None, metavar="PATH",
                   help="open the notebooks on this index (yours, or an imported GraphRAG / LightRAG one; only read): "
                   "every notebook whose INDEX parameter is None uses it, and nothing bundled is built")
    p.add_argument("--workshop-index", default=None,
                   help=f"the bundled workshop index (default ${WORKSHOP_ENV} or .agrag/workshop), built if missing")
    p.add_argument("--musique-index", default=None,
                   help=f"MuSiQue slice index (default ${MUSIQUE_ENV} or .agrag/musique-lab)")
    p.add_argument("--musique-questions", type=int, default=None,
                   help=f"MuSiQue questions in the slice (default {DEFAULT_MUSIQUE_QUESTIONS})")
    p.add_argument("--no-musique", action="store_true", help="skip the MuSiQue slice (notebooks 03, 06 need it)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--token-file", default=None, metavar="PATH",
                   help="read the access token from this file (mode 600); default: $JUPYTER_TOKEN, else a random "
                   "one, printed in the URL. Never on the command line: every local user can read it there")
    p.add_argument("--notebooks", default="notebooks", help="folder of the notebooks, relative to the repository")
    p.add_argument("--fresh", action="store_true",
                   help="copy the notebooks into the working copy again (drops your edits there)")
    p.add_argument("--prepare-only", action="store_true", help="build the indexes and exit")
    p.set_defaults(func=cmd_lab)
