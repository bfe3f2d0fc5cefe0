"""What several commands share, so each flag reads and behaves the same everywhere: --json, --force
and the rule that an existing file is replaced only with --force; the refusal of options given that
do not apply to the chosen mode (`refuse_inapplicable`); and library errors told in the options'
names (`as_typed`: the library says "topn must be >= 1", the command line "-k/--topn must be >= 1").
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from embedlab.errors import InvalidValueError

Command = TypeVar("Command", bound=Callable[..., None])

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of tables.")]
ForceFlag = Annotated[bool, typer.Option("--force", help="Replace files that already exist at --out.")]


def path_text(text: str) -> str:
    """The parser of every option and argument that takes a path (or a built-in name): an empty one
    is refused, since Path("") is the current folder, which a command would read or write unasked."""
    if not text.strip():
        raise typer.BadParameter(f"an empty path ({text!r}); give a file or folder name ('.' for the current folder)")
    return text


def path_value(text: str) -> Path:
    """path_text for an option whose value is a Path."""
    return Path(path_text(text))


def refuse_existing(paths: Iterable[Path], force: bool) -> None:
    """Raise InvalidValueError naming the first of `paths` that exists, unless `force`.

    Commands call it with every file they are about to write, before any work, so a refusal
    costs nothing and leaves every file as it was.
    """
    existing = next((path for path in paths if path.exists()), None)
    if existing is not None and not force:
        raise InvalidValueError(f"{existing} already exists; add --force to replace it")


def given(names: Iterable[str]) -> list[str]:
    """Of the running command's parameters `names` (Python names), those the user typed (or set in the
    environment), each as typed: "--groups 3", "--untied", "--subwords"; in the command's order.
    The command must be registered through `as_typed`, which keeps its context."""
    ctx = _RUNNING.get()
    wanted, shown = set(names), []
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name)
        if param.name not in wanted or source is None or source.name in ("DEFAULT", "DEFAULT_MAP"):
            continue
        value = ctx.params[param.name]
        if getattr(param, "is_flag", False):  # --tied/--untied: the side given
            secondary = getattr(param, "secondary_opts", None)
            shown.append((param.opts if value or not secondary else secondary)[-1])
        else:
            values = value if isinstance(value, (list, tuple)) else [value]
            shown.append(" ".join(f"{_spelling(param)} {v}" for v in values))
    return shown


def refuse_inapplicable(mode: str, names: Iterable[str], why: str = "") -> None:
    """Raise InvalidValueError naming each option among `names` (the command's Python parameter names)
    that the user gave, where none of them applies to `mode`: an option that would change nothing is
    a mistake to report, never one to ignore. `why` says what the mode does instead.

    refuse_inapplicable("--method lm", ["window", "negative"], "it trains on BPE pieces in fixed windows")
    -> "--window 3 does not apply to --method lm (it trains on ...); drop it"
    """
    shown = given(names)
    if shown:
        them = "it" if len(shown) == 1 else "them"
        verb = "does" if len(shown) == 1 else "do"
        because = f" ({why})" if why else ""
        raise InvalidValueError(f"{', '.join(shown)} {verb} not apply to {mode}{because}; drop {them}")


def as_typed(command: Command, **aliases: str) -> Command:
    """`command` as Typer registers it: its context kept for `given`, and its errors from the library
    told with the options' names as the user types them.

    A library error that starts with the name of a parameter (InvalidValueError.param, as the
    errors.check_* helpers set it) is told with the option's spelling instead when the command has a
    parameter of that name, or of the name `aliases` maps it to (walks_per_node="walks"):
    "topn must be >= 1; got 0" -> "-k/--topn must be >= 1; got 0".
    """
    signature = inspect.signature(command, eval_str=True)
    context = inspect.Parameter("typer_context", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)

    @functools.wraps(command)
    def run(typer_context: typer.Context, **kwargs):
        token = _RUNNING.set(typer_context)
        try:
            return command(**kwargs)
        except InvalidValueError as err:
            raise _as_typed(err, typer_context, aliases) from err
        finally:
            _RUNNING.reset(token)

    run.__signature__ = signature.replace(parameters=[context, *signature.parameters.values()])
    run.__annotations__ = {**command.__annotations__, "typer_context": typer.Context}
    return run  # type: ignore[return-value]


_RUNNING: ContextVar[typer.Context] = ContextVar("the running command's context")


def _as_typed(err: InvalidValueError, ctx: typer.Context, aliases: dict[str, str]) -> InvalidValueError:
    """`err` told with the option's spelling, or `err` itself where it names no parameter of the command."""
    name, message = err.param, str(err)
    params = {p.name: p for p in ctx.command.params}
    param = params.get(aliases.get(name, name)) if name else None
    if param is None or not message.startswith(name + " "):
        return err
    return InvalidValueError(_spelling(param) + message[len(name) :], param=param.name)


def _spelling(param) -> str:
    """How a parameter is named to the user: an option by its names ("-k/--topn"), an argument by its
    metavar ("TEXT")."""
    if param.param_type_name == "option":
        return "/".join(param.opts)
    return param.metavar or (param.name or "").upper()
