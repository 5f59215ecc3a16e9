"""Reads a Revy Perfetto export with Perfetto's own trace protos (pip package `perfetto`).

Usage: python3 perfetto_check.py TRACE.pftrace

Prints one JSON object: the slices as [tid, start ns, end ns, name, receiver oid], the
thread names by tid and the number of flow ids. Exits non-zero, naming the place, when the
file does not parse as perfetto.protos.Trace, when any message holds a field Perfetto does
not define (or one with the wrong wire type), or when the slices do not nest per track.
Used by annotator/tests/export_scale.rs.
"""

import json
import sys

from google.protobuf.unknown_fields import UnknownFieldSet
from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import Trace, TrackEvent


def repeated(field):
    """Across protobuf versions (`is_repeated` replaced `label`)."""
    if hasattr(field, "is_repeated"):
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def unknown_fields(msg, path):
    """Paths of every field the protos do not define, in msg and below."""
    found = []
    if len(UnknownFieldSet(msg)):
        found.append(path)
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            continue
        items = value if repeated(field) else [value]
        for i, item in enumerate(items):
            found += unknown_fields(item, f"{path}.{field.name}[{i}]")
    return found


def main(path):
    trace = Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    bad = unknown_fields(trace, "trace")
    if bad:
        sys.exit(f"{path}: fields Perfetto does not define at {bad[:5]}")
    names, arg_names, track_tid, thread_names = {}, {}, {}, {}
    open_slices, slices, flows = {}, [], 0
    for n, p in enumerate(trace.packet):
        if p.sequence_flags & 1:  # SEQ_INCREMENTAL_STATE_CLEARED
            names, arg_names = {}, {}
        for e in p.interned_data.event_names:
            names[e.iid] = e.name
        for e in p.interned_data.debug_annotation_names:
            arg_names[e.iid] = e.name
        if p.HasField("track_descriptor") and p.track_descriptor.HasField("thread"):
            th = p.track_descriptor.thread
            track_tid[p.track_descriptor.uuid] = th.tid
            thread_names[th.tid] = th.thread_name
        if not p.HasField("track_event"):
            continue
        te = p.track_event
        if te.track_uuid not in track_tid:
            sys.exit(f"{path}: packet {n}: event on undescribed track {te.track_uuid}")
        stack = open_slices.setdefault(te.track_uuid, [])
        if te.type == TrackEvent.TYPE_SLICE_BEGIN:
            oid = [a.uint_value for a in te.debug_annotations
                   if arg_names.get(a.name_iid) == "receiver_oid"]
            flows += len(te.flow_ids)
            stack.append((p.timestamp, names[te.name_iid], oid[0]))
        elif te.type == TrackEvent.TYPE_SLICE_END:
            if not stack:
                sys.exit(f"{path}: packet {n}: end without begin")
            start, name, oid = stack.pop()
            if p.timestamp < start:
                sys.exit(f"{path}: packet {n}: slice ends before it starts")
            slices.append([track_tid[te.track_uuid], start, p.timestamp, name, oid])
        else:
            sys.exit(f"{path}: packet {n}: unexpected track event type {te.type}")
    if any(open_slices.values()):
        sys.exit(f"{path}: unclosed slices")
    json.dump({"slices": slices, "threads": thread_names, "flows": flows}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
