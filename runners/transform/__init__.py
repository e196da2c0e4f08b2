"""The graph-transform backend: build and run one distributed training graph for any Strategy.

``build_train_graph`` turns a traced step and a Strategy into a TF graph; ``TrainingJob`` runs it on a running
cluster; ``reference_train`` is the single-device training the backend is proven equal to.
"""
from runners.transform._driver import TrainingJob, closed_together, graphs_ahead, job_graph
from runners.transform._graph import TrainGraph, build_train_graph
from runners.transform._optimizer import Optimizer
from runners.transform._plan import Unit, VarPlan, execution_mode, plan_strategy
from runners.transform._reference import reference_train

__all__ = ["Optimizer", "TrainGraph", "TrainingJob", "Unit", "VarPlan", "build_train_graph", "closed_together",
           "execution_mode", "graphs_ahead", "job_graph", "plan_strategy", "reference_train"]
