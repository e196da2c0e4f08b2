"""Reports of a search: pandas tables and matplotlib figures from an output directory or a study.

``load_output_dir(DIR)`` / ``load_from_study(URL, NAME)`` give a :class:`Run`; ``write_report(run, OUT)``
writes its tables and four figures; ``compare_strategies`` profiles strategy files side by side.
"""
from autotune.report._compare import Comparison, compare_strategies
from autotune.report._report import FIGURES, Report, complete_from_model, model_context, write_report
from autotune.report._source import Run, load_from_study, load_output_dir
from autotune.report._tables import candidates_table, to_markdown, trials_table
from autotune.report._varmap import strategy_map

__all__ = ["FIGURES", "Comparison", "Report", "Run", "candidates_table", "compare_strategies",
           "complete_from_model", "load_from_study", "load_output_dir", "model_context", "strategy_map",
           "to_markdown", "trials_table", "write_report"]
