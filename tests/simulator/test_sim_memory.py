"""The memory model by hand: what a PS, an all-reduce and a sharded strategy keep on each node of a toy model, the
optimizer's slots, the compressors' state, GPUs, and the line a plan that does not fit gets."""
from __future__ import annotations

import dataclasses

import pytest

from sim_helpers import ADDR, cluster, dev, inventory, zero_cal
from simulator import MEMORY_PARTS, Scorer
from space._optimizers import slot_count
from space.cluster import ClusterSpec
from space.strategy import Strategy, ar_node, partitioned_node, ps_node

A, B, _ = ADDR
V0, V1 = 1000 * 250 * 4, 250 * 4  # a (1000, 250) kernel and its (250,) bias, float32
BOTH = V0 + V1


def memory(nodes, inv=None, spec=None, replicas=None):
    inv, spec = inv or inventory((1000, 250), (250,)), spec or cluster(2)
    return Scorer(inv, spec, zero_cal(spec)).memory(Strategy.build(nodes, replicas or spec.replicas))


def parts(plan, address) -> dict:
    return {k: v for k, v in plan.node(address).parts.items() if v}


def test_ps_keeps_the_variables_and_their_sum_on_the_server_and_pulls_them_elsewhere():
    plan = memory([ps_node("v0", dev(0)), ps_node("v1", dev(0))])
    assert parts(plan, A) == {"variables": BOTH, "aggregation": BOTH, "gradients": BOTH}
    assert parts(plan, B) == {"pulled": BOTH, "gradients": BOTH}
    assert plan.node(A).total == 3 * BOTH


def test_a_proxy_replaces_the_pull_with_a_copy_per_node():
    plan = memory([ps_node("v0", dev(0), local_replication=True), ps_node("v1", dev(0), local_replication=True)])
    assert parts(plan, B) == {"proxies": BOTH, "gradients": BOTH}


def test_all_reduce_keeps_a_copy_its_gradient_and_its_result_on_every_tower():
    plan = memory([ar_node("v0"), ar_node("v1")])
    for address in (A, B):
        assert parts(plan, address) == {"variables": BOTH, "gradients": BOTH, "aggregation": BOTH}


def test_sharding_splits_the_variable_between_its_servers():
    half = V0 // 2
    plan = memory([partitioned_node("v0", (1000, 250), 0, [ps_node("v0", dev(0)), ps_node("v0", dev(1))]),
                   ps_node("v1", dev(0))])
    assert parts(plan, A) == {"variables": half + V1, "aggregation": half + V1, "pulled": half, "gradients": BOTH}
    assert parts(plan, B) == {"variables": half, "aggregation": half, "pulled": half + V1, "gradients": BOTH}


@pytest.mark.parametrize("config, slots", [
    ({"name": "sgd"}, 0), ({"name": "sgd", "momentum": 0.9}, 1), ({"name": "momentum"}, 1), ({"name": "adam"}, 2),
    ({"name": "adamw", "amsgrad": True}, 3), ({"name": "adagrad"}, 1), ({"name": "ftrl"}, 2),
    ({"name": "rmsprop"}, 1), ({"name": "rmsprop", "momentum": 0.9, "centered": True}, 3),
    ({"name": "adam", "use_ema": True}, 3), (None, 0)], ids=repr)
def test_slots_per_optimizer(config, slots):
    assert slot_count(config) == slots


@pytest.mark.parametrize("kind", ["ps", "ar"])
def test_adam_keeps_two_slots_beside_every_updated_copy(kind):
    nodes = ([ps_node("v0", dev(0)), ps_node("v1", dev(0))] if kind == "ps" else [ar_node("v0"), ar_node("v1")])
    inv = inventory((1000, 250), (250,))
    sgd, adam = memory(nodes, inv), memory(nodes, dataclasses.replace(inv, optimizer={"name": "adam"}))
    assert adam.node(A).parts["slots"] == 2 * BOTH and sgd.node(A).parts["slots"] == 0
    assert adam.node(B).parts["slots"] == (2 * BOTH if kind == "ar" else 0)  # a PS updates on its server only


def test_powersgd_keeps_its_error_and_q_and_sends_p_and_q():
    rank = 4
    plan = memory([ar_node("v0", compressor="PowerSGDCompressor", powersgd_rank=rank),
                   ar_node("v1", compressor="PowerSGDCompressor", powersgd_rank=rank)])
    p, q = 1000 * rank * 4, 250 * rank * 4  # the bias, a vector, goes uncompressed and keeps no state
    assert parts(plan, A) == {"variables": BOTH, "gradients": BOTH, "aggregation": BOTH + p + q,
                              "compression": V0 + q}


def test_error_feedback_keeps_a_float32_residual_and_sends_fp16():
    plan = memory([ar_node("v0", compressor="HorovodCompressorEF"), ar_node("v1", compressor="HorovodCompressorEF")])
    assert parts(plan, B)["compression"] == BOTH and parts(plan, B)["aggregation"] == BOTH + BOTH // 2


def test_gpu_towers_hold_their_parts_on_each_gpu():
    spec = ClusterSpec.from_dict({"nodes": [{"address": A, "chief": True, "gpus": [0, 1], "gpu_memory": "1GB"}]})
    plan = memory([ar_node("v0"), ar_node("v1")], spec=spec)
    node = plan.node(A)
    assert {k: v for k, v in node.gpu_parts.items() if v} == {"variables": BOTH, "gradients": BOTH,
                                                               "aggregation": BOTH}
    assert node.total == 0 and set(node.parts) == set(MEMORY_PARTS)
    assert plan.misfit(spec) is None


def _sized(memory_: str) -> ClusterSpec:
    return ClusterSpec.from_dict({"nodes": [{"address": a, "chief": a == A, "memory": memory_} for a in (A, B)]})


def test_a_plan_that_does_not_fit_names_the_node_its_need_and_what_it_has():
    inv = dataclasses.replace(inventory((10_000, 25_000)), optimizer={"name": "adam"})  # 1 GB
    spec = _sized("4GB")
    ar = memory([ar_node("v0")], inv, spec)  # a copy, two slots, a gradient and its result on each node: 5 GB
    assert ar.node(A).total == 5e9
    assert ar.misfit(spec).line() == "needs 5 GB on 198.18.0.1, has 3.5 GB (4 GB less 500 MB for TensorFlow)"
    ps = memory([ps_node("v0", dev(1))], inv, spec)  # the server's 5 GB, its own tower's gradient among them
    assert (ps.node(A).total, ps.node(B).total) == (2e9, 5e9)
    assert [m.address for m in ps.misfits(spec)] == [B]
    assert memory([ps_node("v0", dev(1))], inv, _sized("5.5GB")).misfit(_sized("5.5GB")) is None


def test_a_spec_without_memory_never_misfits():
    inv = inventory((10_000, 25_000))
    spec = cluster(2)
    assert memory([ar_node("v0")], inv, spec).misfit(spec) is None


@pytest.mark.parametrize("activations, pipeline", [(0, 0), (4096, 1000)])
def test_each_tower_holds_its_activations_and_its_input_pipeline(activations, pipeline):
    from simulator._memory import INPUT_COPIES

    inv = dataclasses.replace(inventory((1000, 250), (250,)), activation_bytes=activations, input_bytes=pipeline)
    plan = memory([ps_node("v0", dev(0)), ps_node("v1", dev(0))], inv)
    for address in (A, B):
        node = plan.node(address)
        assert (node.parts["activations"], node.parts["input"]) == (activations, INPUT_COPIES * pipeline)


def test_every_server_pays_the_runtime_and_the_chief_the_master():
    inv = dataclasses.replace(inventory((1000, 250), (250,)), graph_ops=100)
    spec = cluster(2)
    cal = zero_cal(spec, job_bytes=1e6, job_bytes_per_op=10.0, master_bytes_per_op=20.0, master_initial_share=0.5)
    plan = Scorer(inv, spec, cal).memory(Strategy.build([ps_node("v0", dev(1)), ps_node("v1", dev(1))],
                                                        spec.replicas))
    chief = next(n.address for n in spec.nodes if n.chief)
    other = next(n.address for n in spec.nodes if not n.chief)
    assert plan.node(other).parts["runtime"] == plan.node(chief).parts["runtime"] == 1e6 + 100 * 10.0
    assert plan.node(chief).parts["master"] == 100 * 20.0 + 0.5 * BOTH
    assert plan.node(other).parts["master"] == 0
    assert type(inv).from_dict(inv.to_dict()).graph_ops == 100  # a cached inventory keeps its ops


def _probe(ops: int, initial: float, plan: float, terms: tuple[float, float, float, float]) -> dict:
    floor, per_op, master_op, share = terms
    grown = floor + per_op * ops
    return {"ops": ops, "initial_bytes": initial,
            "nodes": [{"chief": True, "plan": plan, "measured": plan + grown + master_op * ops + share * initial},
                      {"chief": False, "plan": plan / 2, "measured": plan / 2 + grown}]}


@pytest.mark.parametrize("terms", [(8e6, 4e3, 9e3, 0.6), (5e6, 1e3, 0.0, 1.0)], ids=["all", "no-master-ops"])
def test_fit_job_memory_recovers_the_terms_of_the_probes(terms):
    from simulator import fit_job_memory

    probes = [_probe(o, i, p, terms) for o, i, p in [(50, 1e3, 1e5), (900, 2e3, 2e5), (60, 3e7, 6e7),
                                                     (500, 8e7, 1e8)]]
    fitted = fit_job_memory(probes)
    assert list(fitted.values()) == pytest.approx(list(terms), rel=1e-6, abs=1e-3)


def test_fit_job_memory_leaves_out_a_term_the_probes_make_negative():
    from simulator import fit_job_memory

    # a chief that holds less the more initial values it relayed: no share of them to model
    probes = [_probe(o, i, p, (8e6, 4e3, 9e3, -0.1)) for o, i, p in [(50, 1e3, 1e5), (900, 2e3, 2e5),
                                                                     (60, 3e7, 6e7), (500, 8e7, 1e8)]]
    fitted = fit_job_memory(probes)
    assert fitted["master_initial_share"] == 0 and all(v >= 0 for v in fitted.values())
