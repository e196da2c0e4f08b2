"""The simulator's fidelity: ``validate-simulator`` (``run_fidelity(FidelityConfig)``) and the harness it runs on.

``_validation`` picks strategies, profiles and predicts them and scores the agreement (everything but the profiling
runs without TensorFlow); ``_io`` writes and reads its tables; ``_journal`` keeps each run's measurements as they
finish; ``_pipeline`` joins them behind the command."""
from space.errors import AutotuneError, BadInput  # noqa: F401 - raised by the harness: tests match them here
from autotune.fidelity._journal import MeasurementJournal
from autotune.fidelity._pipeline import FidelityConfig, run_fidelity
from autotune.fidelity._validation import (Report, Row, anchor_fit, evaluate, fit_drift, group_plan, journal_header,
                                           measure_together, measurement_noise, pass_order, pick_strategies,
                                           predict_rows, repredict, run_validation, since_calibration,
                                           split_holdout, strategy_key)

__all__ = ["MeasurementJournal", "Report", "Row", "anchor_fit", "evaluate", "fit_drift", "group_plan",
           "journal_header", "measure_together", "measurement_noise", "pass_order", "pick_strategies", "predict_rows",
           "repredict", "run_validation", "since_calibration", "split_holdout", "strategy_key", "FidelityConfig",
           "run_fidelity"]

