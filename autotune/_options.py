"""Command-line options made from a configuration dataclass, so that a field and its option cannot drift apart.

A field declared with :func:`option` carries its help (and, where the command line spells it otherwise, its flag, type
or parsing); :func:`add_options` adds one ``argparse`` option per such field and :func:`values` reads them back as
the dataclass's keyword arguments. Values are checked when the command line is read (:func:`count`,
:func:`positive_seconds`), before any work.
"""
from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Callable

# the most steps a job may ask for: TensorFlow counts steps and batches in 64-bit integers
MAX_STEPS = 2**63 - 1


def option(default: Any, help: str, *, flag: str | tuple[str, ...] | None = None, type: Callable | None = None,
           metavar: str | None = None, choices: tuple | None = None, parse: Callable | None = None,
           cli_default: Any = dataclasses.MISSING) -> Any:
    """A dataclass field that is also a command-line option: ``--<name-with-dashes>`` unless ``flag`` says
    otherwise; a bool field is a switch (``store_true``, or ``store_false`` where it defaults to True and its flag is
    ``--no-...``); ``parse`` turns the command line's value into the field's (``cli_default`` is then the command
    line's default)."""
    meta = {"help": help, "flag": flag, "type": type, "metavar": metavar, "choices": choices, "parse": parse,
            "cli_default": cli_default}
    return dataclasses.field(default=default, metadata=meta)


def add_options(parser: argparse.ArgumentParser, cls: type, *, skip: tuple[str, ...] = ()) -> None:
    """One option of ``parser`` per :func:`option` field of dataclass ``cls`` (but those in ``skip``)."""
    for f in dataclasses.fields(cls):
        meta = f.metadata
        if "help" not in meta or f.name in skip:
            continue
        flags = meta["flag"] or "--" + f.name.replace("_", "-")
        kwargs: dict[str, Any] = {"dest": f.name, "help": meta["help"]}
        if isinstance(f.default, bool) and meta["type"] is None and meta["parse"] is None:
            kwargs["action"] = "store_false" if f.default else "store_true"
        else:
            kwargs["type"] = meta["type"] or (type(f.default) if f.default is not None else str)
            kwargs["default"] = f.default if meta["cli_default"] is dataclasses.MISSING else meta["cli_default"]
            for key in ("metavar", "choices"):
                if meta[key] is not None:
                    kwargs[key] = meta[key]
        parser.add_argument(*([flags] if isinstance(flags, str) else flags), **kwargs)


def values(args: argparse.Namespace, cls: type, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The :func:`option` fields of ``cls`` read back from parsed ``args``, as keyword arguments of ``cls``."""
    out = {}
    for f in dataclasses.fields(cls):
        if "help" not in f.metadata or f.name in skip:
            continue
        value = getattr(args, f.name)
        out[f.name] = f.metadata["parse"](value) if f.metadata["parse"] is not None else value
    return out


def count(low: int, high: int = MAX_STEPS):
    """An argparse type: an integer in ``low..high``, checked when the command line is read (before any work)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high} (a 64-bit count), got {text}")
        return value

    parse.__name__ = f"count({low})"
    return parse


def positive_seconds(text: str) -> float:
    """An argparse type: seconds > 0 (a timeout of 0 or less would cut every step at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0 seconds, got {text}")
    return value


REDUCED = {"auto": None, "yes": True, "no": False}


def space_option(name: str, default: Any = False) -> Any:
    """The strategy space's options, alike in every command that draws from the space (``search``,
    ``validate-simulator``)."""
    if name == "reduced":
        return option(None, "per-class instead of per-variable choices (auto: above 16 variables)",
                      type=str, choices=tuple(REDUCED), cli_default="auto", parse=REDUCED.__getitem__)
    helps = {"sparse_ps_only": "keep sparse-gradient variables on PS",
             "allow_async": "also asynchronous PS and bounded staleness (changes training dynamics)",
             "lossless": "exact synchronizers only: no gradient compression (fp16, error feedback, PowerSGD)"}
    return option(default, helps[name])
