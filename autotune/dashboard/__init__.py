"""optuna-dashboard on a search's study (``autotune dashboard``, ``autotune search --dashboard``) and the notes a
search leaves on its trials for it."""
from autotune.dashboard._notes import annotate, note_body, study_note, trial_parts
from autotune.dashboard._server import Dashboard, StudyRef, check_study, locate, open_dashboard, read_only

__all__ = ["Dashboard", "StudyRef", "annotate", "check_study", "locate", "note_body", "open_dashboard", "read_only",
           "study_note", "trial_parts"]
