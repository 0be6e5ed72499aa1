#!/usr/bin/env python3
"""Writes one collective as MLCommons Chakra execution traces, one file per NPU, for ASTRA-sim.

Usage: chakra_collective.py all_reduce|all_to_all|all_gather|reduce_scatter NPUS BYTES PREFIX
(writes PREFIX.<npu>.et for every NPU)

Each file holds what Chakra's own microbenchmark generator writes for a collective
(src/generator/generator.py, generate_comm_coll_node): a GlobalMetadata of version 0.0.4, then
one COMM_COLL_NODE with the attributes is_cpu_op (false), comm_type and comm_size (bytes), every
message preceded by its size as a varint (src/third_party/utils/protolib.py, encodeMessage).
The few protobuf fields are encoded here by hand from Chakra's schema (schema/protobuf/
et_def.proto: Node id 1, name 2, type 3, attr 10; AttributeProto name 1, int64_val 9, bool_val
27), so that no protobuf package is needed; the bytes are those protobuf writes for the same
message.
"""
import sys

COMM_COLL_NODE = 7
COMM_TYPE = {"all_reduce": 0, "all_gather": 2, "all_to_all": 6, "reduce_scatter": 7}


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def string_field(field, text):
    data = text.encode()
    return key(field, 2) + varint(len(data)) + data


def message_field(field, data):
    return key(field, 2) + varint(len(data)) + data


def delimited(message):
    return varint(len(message)) + message


def node(op, size):
    attrs = [
        string_field(1, "is_cpu_op") + key(27, 0) + varint(0),
        string_field(1, "comm_type") + key(9, 0) + varint(COMM_TYPE[op]),
        string_field(1, "comm_size") + key(9, 0) + varint(size),
    ]
    # id 0, proto3's default, is not written (as protobuf writes it)
    body = string_field(2, op.upper()) + key(3, 0) + varint(COMM_COLL_NODE)
    return body + b"".join(message_field(10, a) for a in attrs)


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in COMM_TYPE:
        sys.exit(__doc__.strip().splitlines()[2])
    op, npus, size, prefix = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    content = delimited(string_field(1, "0.0.4")) + delimited(node(op, size))
    for npu in range(npus):
        with open(f"{prefix}.{npu}.et", "wb") as f:
            f.write(content)


if __name__ == "__main__":
    main()
