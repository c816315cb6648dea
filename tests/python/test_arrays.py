"""NumPy in and out: every operand type round-trips through the module's conversions and,
for the tensor types a model can take and give, through a model (CAST, the identity);
bad arrays are refused with a message naming the input and what is wrong, and the
interpreter goes on."""
import json

import numpy as np
import pytest

import nncosim

# Operand type -> (dtype, scale, zeroPoint, sample values) for a model of it.
TENSOR_TYPES = {
    "TENSOR_FLOAT32": ("float32", 0.0, 0, [1.5, -2.25, 3e38, -0.0, np.inf, 7.0]),
    "TENSOR_FLOAT16": ("float16", 0.0, 0, [1.5, -2.25, 65504.0, -0.0, np.inf, 7.0]),
    "TENSOR_INT32": ("int32", 0.0, 0, [0, -1, 2**31 - 1, -2**31, 5, 7]),
    "TENSOR_QUANT8_ASYMM": ("uint8", 0.5, 128, [0, 1, 127, 128, 254, 255]),
    "TENSOR_QUANT8_ASYMM_SIGNED": ("int8", 0.5, -3, [-128, -1, 0, 1, 126, 127]),
    "TENSOR_QUANT8_SYMM": ("int8", 0.5, 0, [-128, -1, 0, 1, 126, 127]),
    "TENSOR_QUANT16_SYMM": ("int16", 0.5, 0, [-32768, -1, 0, 1, 300, 32767]),
    "TENSOR_QUANT16_ASYMM": ("uint16", 0.5, 7, [0, 1, 300, 32768, 65534, 65535]),
    "TENSOR_BOOL8": ("bool", 0.0, 0, [True, False, True, True, False, False]),
}
# Types no model input or output has (scalars, per-channel weights): the conversions only.
OTHER_TYPES = {
    "FLOAT32": ("float32", [], 2.5),
    "FLOAT16": ("float16", [], -0.5),
    "INT32": ("int32", [], -7),
    "UINT32": ("uint32", [], 2**32 - 1),
    "BOOL": ("bool", [], True),
    "TENSOR_QUANT8_SYMM_PER_CHANNEL": ("int8", [2, 3], [[-128, 0, 127], [1, -1, 5]]),
}


def cast_model(tmp_path, operand_type):
    dtype, scale, zero_point, _ = TENSOR_TYPES[operand_type]
    operand = {"type": operand_type, "dimensions": [2, 3], "scale": scale,
               "zeroPoint": zero_point, "lifetime": "SUBGRAPH_INPUT", "name": "x"}
    path = tmp_path / f"cast_{operand_type.lower()}.json"
    path.write_text(json.dumps({"format": "nncosim-model/1", "main": {
        "operands": [operand, dict(operand, lifetime="SUBGRAPH_OUTPUT", name="y")],
        "operations": [{"type": "CAST", "inputs": [0], "outputs": [1]}],
        "inputIndexes": [0], "outputIndexes": [1]}}))
    return nncosim.load(str(path))


@pytest.mark.parametrize("operand_type", sorted(TENSOR_TYPES))
@pytest.mark.parametrize("backend", ["ref", "isa"])
def test_tensor_types_round_trip_through_a_model(tmp_path, operand_type, backend):
    dtype, _, _, values = TENSOR_TYPES[operand_type]
    x = np.array(values, dtype=dtype).reshape(2, 3)
    prepared = cast_model(tmp_path, operand_type).prepare(backend=backend)
    for inputs in (x, [x], (x,), {"x": x}, {0: x}):
        result = prepared.run(inputs)
        (y,) = result.outputs
        assert y.dtype == np.dtype(dtype) and y.shape == (2, 3)
        assert y.tobytes() == x.tobytes()  # bit for bit: -0.0, inf, the extremes
        assert result.named_outputs["y"].tobytes() == x.tobytes()
    assert cast_model(tmp_path, operand_type).info()["inputs"][0]["dtype"] == dtype


@pytest.mark.parametrize("operand_type", sorted(TENSOR_TYPES) + sorted(OTHER_TYPES))
def test_every_operand_type_round_trips_through_the_conversions(operand_type):
    if operand_type in TENSOR_TYPES:
        dtype, _, _, values = TENSOR_TYPES[operand_type]
        dims, x = [2, 3], np.array(values, dtype=dtype).reshape(2, 3)
    else:
        dtype, dims, values = OTHER_TYPES[operand_type]
        x = np.array(values, dtype=dtype)
    y = nncosim._nncosim._roundtrip(x, operand_type, dims)
    assert y.dtype == x.dtype and y.shape == x.shape and y.tobytes() == x.tobytes()
    assert y is not x and not np.shares_memory(x, y)


@pytest.fixture(scope="module")
def int16_model(tmp_path_factory):
    return cast_model(tmp_path_factory.mktemp("int16"), "TENSOR_QUANT16_SYMM").prepare("ref")


GOOD = np.arange(6, dtype=np.int16).reshape(2, 3)


@pytest.mark.parametrize("bad, message", [
    (GOOD.astype(np.int32), r"input 0 \('x'\): dtype int32 \('<i4'\) but the model input is "
                            r"TENSOR_QUANT16_SYMM \(numpy.int16\)"),
    (GOOD.astype(np.float64), r"dtype float64"),
    (GOOD.astype(">i2"), r"dtype >i2 \('>i2'\)"),  # right type, wrong byte order
    (GOOD.reshape(3, 2), r"shape \(3, 2\) but the model input .* is \(2, 3\)"),
    (GOOD.reshape(6), r"shape \(6,\)"),
    (GOOD.reshape(1, 2, 3), r"shape \(1, 2, 3\)"),
    (np.array(5, dtype=np.int16), r"shape \(\)"),
    (np.arange(12, dtype=np.int16).reshape(2, 6)[:, ::2], r"not C-contiguous"),
    (np.asfortranarray(GOOD), r"not C-contiguous"),
    ([GOOD.tolist()], r"expected a numpy.ndarray of int16 for TENSOR_QUANT16_SYMM, got list"),
    (np.array([["a"] * 3] * 2, dtype=object), r"dtype object"),
    ([GOOD, GOOD], r"2 arrays, the model has 1 inputs \(input 0 \('x'\)\)"),
    ([], r"0 arrays, the model has 1 inputs"),
    ({"nope": GOOD}, r"no input 'nope' \(the model's inputs: input 0 \('x'\)\)"),
    ({"x": GOOD, 0: GOOD}, r"given twice"),
    ({}, r"input 0 \('x'\) is missing"),
    (42, r"inputs must be a numpy.ndarray, a list or tuple of them, or a dict by input name, "
         r"not int"),
])
def test_bad_arrays_are_refused(int16_model, bad, message):
    with pytest.raises(nncosim.InputError, match=message) as e:
        int16_model.run(bad)
    assert isinstance(e.value, ValueError) and isinstance(e.value, nncosim.Error)
    assert str(e.value).startswith(int16_model.model.name + ": ")
    # The interpreter and the prepared model go on.
    assert int16_model.run(GOOD).outputs[0].tobytes() == GOOD.tobytes()


def test_no_inputs_and_omitted_inputs(int16_model):
    with pytest.raises(nncosim.InputError, match=r"no input values \(give inputs=...\)"):
        int16_model.run()  # a model file brings no values
    with pytest.raises(nncosim.Error, match="execution failed"):
        int16_model.run([None])  # omitted: the driver refuses a required input
    demo = nncosim.demo()
    assert demo.prepare("ref").run().outputs[0].shape == (1, 10)  # the demo brings its image


def test_outputs_are_fresh_arrays(int16_model):
    a = int16_model.run(GOOD).outputs[0]
    b = int16_model.run(GOOD).outputs[0]
    a[0, 0] = 99  # each run's arrays are its own and writable
    assert b[0, 0] == 0
