"""Rewrites MediaPipe's custom Convolution2DTransposeBias operator into TFLite's builtin
TRANSPOSE_CONV (version 3, which takes a bias), so LiteRT — which has no kernel for the custom
operator — can run the selfie-segmentation models as a reference.

The model is read with the `tflite` package (FlatBuffers readers generated from the TFLite
schema) and written anew with `flatbuffers`' Builder. Only what these models use is copied:
one subgraph; float tensors without quantization or sparsity; the options tables of CONV_2D,
DEPTHWISE_CONV_2D, pooling, ADD, MUL, RESIZE_BILINEAR and MEAN; buffers; metadata. The custom
operator's inputs (input, weights, bias) become (output shape, weights, input, bias), with a
new int32 constant for the output shape (SAME padding: input size × stride, as MediaPipe's
operator computes it for these models).
"""
import struct

import flatbuffers
import numpy as np
import tflite

TRANSPOSE_CONV = 67
CUSTOM = 32


def rewrite(data: bytes) -> bytes:
    model = tflite.Model.GetRootAsModel(data, 0)
    if model.SubgraphsLength() != 1:
        raise ValueError("only single-subgraph models are rewritten")
    g = model.Subgraphs(0)
    b = flatbuffers.Builder(len(data) + 4096)
    custom = [i for i in range(model.OperatorCodesLength())
              if model.OperatorCodes(i).CustomCode() == b"Convolution2DTransposeBias"]
    if not custom:
        return data

    # Buffers: the originals, then one per new output-shape tensor.
    extra_buffers, extra_tensors, replacements = [], [], {}
    for i in range(g.OperatorsLength()):
        op = g.Operators(i)
        if op.OpcodeIndex() not in custom:
            continue
        x, w, bias = [int(v) for v in op.InputsAsNumpy()]
        padding, stride_w, stride_h = struct.unpack("<iii", op.CustomOptionsAsNumpy().tobytes()[:12])
        shape = g.Tensors(x).ShapeAsNumpy()
        out = g.Tensors(int(op.Outputs(0))).ShapeAsNumpy()
        buffer_index = model.BuffersLength() + len(extra_buffers)
        extra_buffers.append(np.array(out, dtype="<i4").tobytes())
        tensor_index = g.TensorsLength() + len(extra_tensors)
        extra_tensors.append((buffer_index, f"tconv_output_shape_{i}"))
        replacements[i] = ([tensor_index, w, x, bias], padding, stride_w, stride_h)
        del shape

    def vector_of_bytes(raw):
        b.StartVector(1, len(raw), 16)
        for byte in reversed(raw):
            b.PrependUint8(byte)
        return b.EndVector()

    def int_vector(values, start):
        start(b, len(values))
        for v in reversed(values):
            b.PrependInt32(int(v))
        return b.EndVector()

    def table_vector(offsets, start):
        start(b, len(offsets))
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    buffers = []
    for i in range(model.BuffersLength()):
        raw = model.Buffers(i).DataAsNumpy()
        data_offset = vector_of_bytes(raw.tobytes()) if isinstance(raw, np.ndarray) and raw.size else None
        tflite.BufferStart(b)
        if data_offset is not None:
            tflite.BufferAddData(b, data_offset)
        buffers.append(tflite.BufferEnd(b))
    for raw in extra_buffers:
        d = vector_of_bytes(raw)
        tflite.BufferStart(b)
        tflite.BufferAddData(b, d)
        buffers.append(tflite.BufferEnd(b))

    tensors = []
    for i in range(g.TensorsLength()):
        t = g.Tensors(i)
        name = b.CreateString(t.Name())
        shape = int_vector(t.ShapeAsNumpy() if t.ShapeLength() else [], tflite.TensorStartShapeVector)
        tflite.TensorStart(b)
        tflite.TensorAddShape(b, shape)
        tflite.TensorAddType(b, t.Type())
        tflite.TensorAddBuffer(b, t.Buffer())
        tflite.TensorAddName(b, name)
        tensors.append(tflite.TensorEnd(b))
    for buffer_index, label in extra_tensors:
        name = b.CreateString(label)
        shape = int_vector([4], tflite.TensorStartShapeVector)
        tflite.TensorStart(b)
        tflite.TensorAddShape(b, shape)
        tflite.TensorAddType(b, tflite.TensorType.INT32)
        tflite.TensorAddBuffer(b, buffer_index)
        tflite.TensorAddName(b, name)
        tensors.append(tflite.TensorEnd(b))

    def options(op):
        """Rebuilds the op's builtin options table; returns (type, offset)."""
        kind = op.BuiltinOptionsType()
        table = op.BuiltinOptions()
        if kind == 0 or table is None:
            return 0, None
        T = tflite.BuiltinOptions
        if kind == T.Conv2DOptions:
            o = tflite.Conv2DOptions(); o.Init(table.Bytes, table.Pos)
            tflite.Conv2DOptionsStart(b); tflite.Conv2DOptionsAddPadding(b, o.Padding())
            tflite.Conv2DOptionsAddStrideW(b, o.StrideW()); tflite.Conv2DOptionsAddStrideH(b, o.StrideH())
            tflite.Conv2DOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
            tflite.Conv2DOptionsAddDilationWFactor(b, o.DilationWFactor()); tflite.Conv2DOptionsAddDilationHFactor(b, o.DilationHFactor())
            return kind, tflite.Conv2DOptionsEnd(b)
        if kind == T.DepthwiseConv2DOptions:
            o = tflite.DepthwiseConv2DOptions(); o.Init(table.Bytes, table.Pos)
            tflite.DepthwiseConv2DOptionsStart(b); tflite.DepthwiseConv2DOptionsAddPadding(b, o.Padding())
            tflite.DepthwiseConv2DOptionsAddStrideW(b, o.StrideW()); tflite.DepthwiseConv2DOptionsAddStrideH(b, o.StrideH())
            tflite.DepthwiseConv2DOptionsAddDepthMultiplier(b, o.DepthMultiplier())
            tflite.DepthwiseConv2DOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
            tflite.DepthwiseConv2DOptionsAddDilationWFactor(b, o.DilationWFactor()); tflite.DepthwiseConv2DOptionsAddDilationHFactor(b, o.DilationHFactor())
            return kind, tflite.DepthwiseConv2DOptionsEnd(b)
        if kind == T.Pool2DOptions:
            o = tflite.Pool2DOptions(); o.Init(table.Bytes, table.Pos)
            tflite.Pool2DOptionsStart(b); tflite.Pool2DOptionsAddPadding(b, o.Padding())
            tflite.Pool2DOptionsAddStrideW(b, o.StrideW()); tflite.Pool2DOptionsAddStrideH(b, o.StrideH())
            tflite.Pool2DOptionsAddFilterWidth(b, o.FilterWidth()); tflite.Pool2DOptionsAddFilterHeight(b, o.FilterHeight())
            tflite.Pool2DOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
            return kind, tflite.Pool2DOptionsEnd(b)
        if kind in (T.AddOptions, T.MulOptions):
            o = (tflite.AddOptions if kind == T.AddOptions else tflite.MulOptions)(); o.Init(table.Bytes, table.Pos)
            if kind == T.AddOptions:
                tflite.AddOptionsStart(b); tflite.AddOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
                return kind, tflite.AddOptionsEnd(b)
            tflite.MulOptionsStart(b); tflite.MulOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
            return kind, tflite.MulOptionsEnd(b)
        if kind == T.ResizeBilinearOptions:
            o = tflite.ResizeBilinearOptions(); o.Init(table.Bytes, table.Pos)
            tflite.ResizeBilinearOptionsStart(b); tflite.ResizeBilinearOptionsAddAlignCorners(b, o.AlignCorners())
            tflite.ResizeBilinearOptionsAddHalfPixelCenters(b, o.HalfPixelCenters())
            return kind, tflite.ResizeBilinearOptionsEnd(b)
        if kind == T.ReducerOptions:
            o = tflite.ReducerOptions(); o.Init(table.Bytes, table.Pos)
            tflite.ReducerOptionsStart(b); tflite.ReducerOptionsAddKeepDims(b, o.KeepDims())
            return kind, tflite.ReducerOptionsEnd(b)
        raise ValueError(f"options type {kind} is not copied by this rewriter")

    operators = []
    for i in range(g.OperatorsLength()):
        op = g.Operators(i)
        outputs = int_vector(op.OutputsAsNumpy(), tflite.OperatorStartOutputsVector)
        if i in replacements:
            inputs_list, padding, stride_w, stride_h = replacements[i]
            inputs = int_vector(inputs_list, tflite.OperatorStartInputsVector)
            tflite.TransposeConvOptionsStart(b)
            tflite.TransposeConvOptionsAddPadding(b, tflite.Padding.SAME if padding == 1 else tflite.Padding.VALID)
            tflite.TransposeConvOptionsAddStrideW(b, stride_w)
            tflite.TransposeConvOptionsAddStrideH(b, stride_h)
            opt = tflite.TransposeConvOptionsEnd(b)
            kind = tflite.BuiltinOptions.TransposeConvOptions
        else:
            inputs = int_vector(op.InputsAsNumpy(), tflite.OperatorStartInputsVector)
            kind, opt = options(op)
        tflite.OperatorStart(b)
        tflite.OperatorAddOpcodeIndex(b, op.OpcodeIndex())
        tflite.OperatorAddInputs(b, inputs)
        tflite.OperatorAddOutputs(b, outputs)
        if opt is not None:
            tflite.OperatorAddBuiltinOptionsType(b, kind)
            tflite.OperatorAddBuiltinOptions(b, opt)
        operators.append(tflite.OperatorEnd(b))

    tensors_vec = table_vector(tensors, tflite.SubGraphStartTensorsVector)
    g_inputs = int_vector(g.InputsAsNumpy(), tflite.SubGraphStartInputsVector)
    g_outputs = int_vector(g.OutputsAsNumpy(), tflite.SubGraphStartOutputsVector)
    ops_vec = table_vector(operators, tflite.SubGraphStartOperatorsVector)
    g_name = b.CreateString(g.Name() or b"main")
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensors_vec)
    tflite.SubGraphAddInputs(b, g_inputs)
    tflite.SubGraphAddOutputs(b, g_outputs)
    tflite.SubGraphAddOperators(b, ops_vec)
    tflite.SubGraphAddName(b, g_name)
    subgraph = tflite.SubGraphEnd(b)

    codes = []
    for i in range(model.OperatorCodesLength()):
        c = model.OperatorCodes(i)
        is_custom = i in custom
        custom_name = None if is_custom or c.CustomCode() is None else b.CreateString(c.CustomCode())
        tflite.OperatorCodeStart(b)
        code = TRANSPOSE_CONV if is_custom else max(c.BuiltinCode(), c.DeprecatedBuiltinCode())
        tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
        tflite.OperatorCodeAddBuiltinCode(b, code)
        tflite.OperatorCodeAddVersion(b, 3 if is_custom else c.Version())
        if custom_name is not None:
            tflite.OperatorCodeAddCustomCode(b, custom_name)
        codes.append(tflite.OperatorCodeEnd(b))

    codes_vec = table_vector(codes, tflite.ModelStartOperatorCodesVector)
    subgraphs_vec = table_vector([subgraph], tflite.ModelStartSubgraphsVector)
    buffers_vec = table_vector(buffers, tflite.ModelStartBuffersVector)
    description = b.CreateString(model.Description() or b"")
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, model.Version())
    tflite.ModelAddOperatorCodes(b, codes_vec)
    tflite.ModelAddSubgraphs(b, subgraphs_vec)
    tflite.ModelAddDescription(b, description)
    tflite.ModelAddBuffers(b, buffers_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())
