"""``autotune train``'s options and ``autotune.api.train``'s keywords are one declaration (``TrainConfig``)."""
from __future__ import annotations

import dataclasses

import pytest

from autotune._configs import TrainConfig
from space.errors import BadInput


def _parse(argv: list[str]):
    from autotune.cli import build_parser

    return build_parser().parse_args(["train", "--model", "m.py", "--spec", "c.yml", "--strategy", "s.pb",
                                      "--steps", "5", *argv])


def test_every_field_is_an_option_and_reads_back_as_the_config():
    from autotune._options import values

    args = _parse(["--checkpoint", "ck", "--save-every", "2", "--keep", "4", "--resume", "--logdir", "lg",
                   "--log-every", "3", "--step-timeout", "9.5", "--steps-per-call", "2", "--eval-every", "6",
                   "--eval-steps", "7", "--adapt", "--accept-unknown-hosts", "--ignore-memory"])
    cfg = TrainConfig(**values(args, TrainConfig))
    assert cfg == TrainConfig(checkpoint="ck", save_every=2, keep=4, resume=True, logdir="lg", log_every=3,
                              step_timeout_s=9.5, steps_per_call=2, eval_every=6, eval_steps=7, adapt=True,
                              accept_unknown_hosts=True, ignore_memory=True)
    assert TrainConfig(**values(_parse([]), TrainConfig)) == TrainConfig()


@pytest.mark.parametrize("options, words", [
    ({"keep": 0}, "`keep >= 1` must hold, but got 0"),
    ({"save_every": -1}, "`save_every >= 0`"),
    ({"eval_steps": 0}, "`eval_steps >= 1`"),
    ({"log_every": True}, "`log_every >= 1`"),
    ({"step_timeout_s": 0}, "`step_timeout_s > 0`"),
    ({"resume": True}, "resume needs the checkpoint directory"),
    ({"adapt": True}, "--adapt needs a checkpoint directory"),
    ({"chekpoint": "x"}, "unknown option 'chekpoint'"),
])
def test_a_bad_option_in_code_is_one_bad_input(options, words):
    with pytest.raises(BadInput, match=None) as e:
        TrainConfig.of(options)
    assert words in str(e.value)


def test_keywords_override_a_given_config():
    base = TrainConfig(checkpoint="a", keep=5)
    merged = TrainConfig.of({**dataclasses.asdict(base), "keep": 2})
    assert (merged.checkpoint, merged.keep) == ("a", 2)
