"""The Strategy protobuf as an Optuna define-by-run search space.

``SearchSpace(inventory, cluster).suggest(trial)`` samples a Strategy that :func:`space.validate` accepts;
``encode(strategy)`` gives trial parameters for ``study.enqueue_trial`` and ``decode(params)`` reads them
back (exact for every classic builder: ``builder_params()`` / ``enqueue_builders(study)``).

Every parameter is categorical over a list fixed by the inventory and the cluster, so a name never changes
its distribution between trials (Optuna's rule); parameters that do not apply are not asked. Choices are
indices where an order would mislead (PS destination = index into ``cluster.ps_devices``).

Per-variable space (``v<i>.*``): shard count from ``shard_candidates`` and one per PS, each clipped to every
axis length, plus the smallest divisor >= 2 of each axis length (the classic builders' counts); the axis
when the count fits more than one; then per whole variable or per shard: PS (destination, sync, or async
with a staleness from ``staleness``, local replication) or all-reduce (group in ``range(max_groups)``,
widened to the classic builders' chunked groups; spec; compressor none / fp16 / fp16+EF / PowerSGD with a
rank from ``powersgd_ranks``). ``sparse_ps_only=True`` removes all-reduce for sparse-gradient variables,
which then also drops the builders that all-reduce them from ``builder_params()``.

Compact space (``v<i>.*`` on a cluster with more than ``compact_above`` PS devices, unless reduced): per
variable as above, but one synchronizer for the whole variable or all of its shards alike, whose PS destination
is one of ``compact_above`` servers spread over the cluster (the chief's first) or ``balanced``, and whose group
may be ``chunk``. One shard per PS stays a count; every classic builder stays expressible. Trade-off: a trial
asks a few parameters per variable whatever the cluster's size (a split over 256 servers would otherwise ask a
synchronizer per shard and choose among 256 servers), but a variable's shards cannot differ.

Reduced space (``<class>.*``, default above ``reduce_above`` variables or with ``reduced=True``): variables
are grouped by ``classify`` (default: dense/sparse x size bucket; pass a function of the variable name for
per-layer classes) and one set of choices per class is expanded to each variable. Shard counts become rules
(fixed count clipped to the axis, even split, one per PS), placement may be ``balanced`` (largest-first over
the PS devices) and groups ``chunk`` (every ``chunk_size`` tensors fused), so the classic builders stay
expressible except where they treat a class unevenly (``random_axis_ar``'s random axes). Trade-off: a few
dozen parameters instead of several per variable and shard, so TPE learns from far fewer trials and each
suggestion is cheap, but a strategy that treats two same-class variables differently (one embedding on PS,
another all-reduced; a hand-placed hot variable) is out of reach.
"""
from space.search_space._compact import spread
from space.search_space._plan import BALANCED, CHUNK, SlotPlan, VarPlan
from space.search_space._reduced import size_class
from space.search_space._space import CLASSIC_CHUNK, SearchSpace

__all__ = ["SearchSpace", "size_class", "spread", "BALANCED", "CHUNK", "CLASSIC_CHUNK", "SlotPlan", "VarPlan"]
