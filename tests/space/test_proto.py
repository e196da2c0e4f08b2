"""The Strategy protobuf: generated code is fresh, and the wire format is AutoDist's."""
from __future__ import annotations


import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from space.proto import regen
from space.proto import strategy_pb2 as pb
from space.strategy import Strategy, ar_node, partitioned_node, ps_node

F = descriptor_pb2.FieldDescriptorProto


def test_generated_code_is_fresh(tmp_path):
    fresh = regen.generate(tmp_path).read_text()
    committed = (regen.HERE / "strategy_pb2.py").read_text()
    assert fresh == committed, "space/proto/strategy_pb2.py is stale: run `python -m space.proto.regen`"


def _field(name, number, ftype, label=F.LABEL_OPTIONAL, type_name=None, oneof=None):
    f = F(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name
    if oneof is not None:
        f.oneof_index = oneof
    return f


def _autodist_messages():
    """An independent descriptor written from AutoDist's published field numbers (package autodist.proto)."""
    fd = descriptor_pb2.FileDescriptorProto(name="autodist_strategy_test.proto", package="autodist.proto",
                                            syntax="proto3")
    ps = fd.message_type.add(name="PSSynchronizer")
    ps.field.extend([_field("reduction_destination", 1, F.TYPE_STRING), _field("local_replication", 2, F.TYPE_BOOL),
                     _field("sync", 3, F.TYPE_BOOL), _field("staleness", 4, F.TYPE_INT32)])
    ar = fd.message_type.add(name="AllReduceSynchronizer")
    spec = ar.enum_type.add(name="Spec")
    for i, n in enumerate(["AUTO", "NCCL", "RING"]):
        spec.value.add(name=n, number=i)
    comp = ar.enum_type.add(name="Compressor")
    for i, n in enumerate(["NoneCompressor", "HorovodCompressor", "HorovodCompressorEF", "PowerSGDCompressor"]):
        comp.value.add(name=n, number=i)
    ar.field.extend([_field("spec", 1, F.TYPE_ENUM, type_name=".autodist.proto.AllReduceSynchronizer.Spec"),
                     _field("compressor", 2, F.TYPE_ENUM,
                            type_name=".autodist.proto.AllReduceSynchronizer.Compressor"),
                     _field("group", 3, F.TYPE_INT32)])
    st = fd.message_type.add(name="Strategy")
    node = st.nested_type.add(name="Node")
    node.oneof_decl.add(name="synchronizer")
    node.field.extend([_field("var_name", 1, F.TYPE_STRING),
                       _field("PSSynchronizer", 2, F.TYPE_MESSAGE, type_name=".autodist.proto.PSSynchronizer", oneof=0),
                       _field("AllReduceSynchronizer", 3, F.TYPE_MESSAGE,
                              type_name=".autodist.proto.AllReduceSynchronizer", oneof=0),
                       _field("partitioner", 4, F.TYPE_STRING),
                       _field("part_config", 5, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".autodist.proto.Strategy.Node")])
    gc = st.nested_type.add(name="GraphConfig")
    gc.field.append(_field("replicas", 1, F.TYPE_STRING, F.LABEL_REPEATED))
    st.field.extend([_field("id", 1, F.TYPE_STRING), _field("path", 2, F.TYPE_STRING),
                     _field("node_config", 3, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".autodist.proto.Strategy.Node"),
                     _field("graph_config", 4, F.TYPE_MESSAGE, type_name=".autodist.proto.Strategy.GraphConfig")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("autodist.proto.Strategy"))


AutoDistStrategy = _autodist_messages()


def test_autodist_bytes_parse_into_ours_and_back():
    theirs = AutoDistStrategy(id="s1", path="/tmp/s1")
    theirs.graph_config.replicas.extend(["10.0.0.1:GPU:0", "10.0.0.2:GPU:0"])
    n = theirs.node_config.add(var_name="W:0")
    n.PSSynchronizer.reduction_destination = "10.0.0.1:CPU:0"
    n.PSSynchronizer.sync = True
    n.PSSynchronizer.staleness = 2
    n = theirs.node_config.add(var_name="b:0")
    n.AllReduceSynchronizer.group = 3
    n.AllReduceSynchronizer.spec = 2
    n.AllReduceSynchronizer.compressor = 2
    n = theirs.node_config.add(var_name="E:0", partitioner="2,1")
    for i in range(2):
        p = n.part_config.add(var_name=f"E/part_{i}:0")
        p.PSSynchronizer.reduction_destination = f"10.0.0.{i + 1}:CPU:0"
        p.PSSynchronizer.local_replication = True
    data = theirs.SerializeToString()

    ours = Strategy.from_bytes(data)
    assert ours.replicas == ["10.0.0.1:GPU:0", "10.0.0.2:GPU:0"]
    w, b, e = ours.nodes
    assert (w.var_name, w.PSSynchronizer.reduction_destination, w.PSSynchronizer.sync,
            w.PSSynchronizer.staleness) == ("W:0", "10.0.0.1:CPU:0", True, 2)
    assert (b.AllReduceSynchronizer.group, pb.AllReduceSynchronizer.Spec.Name(b.AllReduceSynchronizer.spec),
            pb.AllReduceSynchronizer.Compressor.Name(b.AllReduceSynchronizer.compressor)) == \
        (3, "RING", "HorovodCompressorEF")
    assert e.partitioner == "2,1" and [p.PSSynchronizer.reduction_destination for p in e.part_config] == \
        ["10.0.0.1:CPU:0", "10.0.0.2:CPU:0"]
    back = AutoDistStrategy()
    back.ParseFromString(ours.to_bytes())
    assert back == theirs


def test_our_new_fields_are_skipped_by_autodist_and_kept_on_round_trip():
    s = Strategy.build([ar_node("w:0", compressor="PowerSGDCompressor", powersgd_rank=4)], ["h:CPU:0"],
                       builder="search")
    s.proto.provenance.predicted_step_time_s = 0.25
    theirs = AutoDistStrategy()
    theirs.ParseFromString(s.to_bytes())
    assert theirs.node_config[0].AllReduceSynchronizer.compressor == 3
    again = Strategy.from_bytes(theirs.SerializeToString())  # unknown fields are preserved by proto3
    assert again.nodes[0].AllReduceSynchronizer.powersgd_rank == 4
    assert again.proto.provenance.predicted_step_time_s == 0.25


@pytest.mark.parametrize("suffix", [".pb", ".pbtxt"])
def test_save_load_round_trip(tmp_path, suffix):
    parts = [ps_node("e:0", "a:CPU:0"), ps_node("e:0", "b:CPU:0", sync=False, staleness=3)]
    s = Strategy.build([ps_node("w:0", "a:CPU:0", local_replication=True), ar_node("b:0", group=1, spec="RING"),
                        partitioned_node("e:0", (10, 4), 0, parts)], ["a:CPU:0", "b:CPU:0"], builder="x")
    path = s.save(tmp_path / f"s{suffix}")
    assert Strategy.load(path) == s
    if suffix == ".pbtxt":
        assert 'var_name: "e/part_1:0"' in path.read_text()


def test_autodist_text_format_parses():
    text = 'node_config { var_name: "W:0" PSSynchronizer { reduction_destination: "localhost:CPU:0" sync: true } }\n' \
           'graph_config { replicas: "localhost:CPU:0" }\n'
    s = Strategy.from_text(text)
    assert s.nodes[0].PSSynchronizer.sync and s.replicas == ["localhost:CPU:0"]


@pytest.mark.parametrize("name,data", [("garbage.pb", b"\xff\xff\xff\xff"), ("bad.pbtxt", b"node_config { nope: 1 }")])
def test_unreadable_strategy_is_bad_input(tmp_path, name, data):
    from space.errors import StrategyError

    (tmp_path / name).write_bytes(data)
    with pytest.raises(StrategyError, match=name):
        Strategy.load(tmp_path / name)
