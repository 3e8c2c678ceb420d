/**
 * A minimal ONNX model encoder: just the protobuf messages a code-built graph needs (ModelProto, GraphProto,
 * NodeProto, AttributeProto, TensorProto, ValueInfoProto), written straight from the field numbers of
 * onnx.proto3. No dependency and no code generation, so graphs are built in memory and handed to
 * onnxruntime as bytes: nothing is downloaded and nothing touches the disk.
 *
 * @internal
 */

/** ONNX `TensorProto.DataType` codes used here. */
export const DataType = { float: 1, bool: 9, int64: 7, double: 11 } as const

/** One of the element types above. */
export type ElemType = keyof typeof DataType

class Writer {
  private chunks: Array<Uint8Array> = []
  private size = 0

  private push(bytes: Uint8Array): this {
    this.chunks.push(bytes)
    this.size += bytes.length
    return this
  }

  private varint(value: number | bigint): this {
    // int64 fields take negative values as 10-byte two's complement varints.
    let v = BigInt.asUintN(64, BigInt(value))
    const out: Array<number> = []
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80)
      v >>= 7n
    }
    out.push(Number(v))
    return this.push(Uint8Array.from(out))
  }

  private tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire)
  }

  int(field: number, value: number | bigint): this {
    return this.tag(field, 0).varint(value)
  }

  bytes(field: number, value: Uint8Array): this {
    return this.tag(field, 2).varint(value.length).push(value)
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value))
  }

  message(field: number, value: Writer): this {
    return this.bytes(field, value.finish())
  }

  float(field: number, value: number): this {
    const buffer = new Uint8Array(4)
    new DataView(buffer.buffer).setFloat32(0, value, true)
    return this.tag(field, 5).push(buffer)
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size)
    let offset = 0
    for (const chunk of this.chunks) {
      out.set(chunk, offset)
      offset += chunk.length
    }
    return out
  }
}

/** A constant tensor (initializer or attribute value). */
export interface Tensor {
  readonly name: string
  readonly type: ElemType
  readonly dims: ReadonlyArray<number>
  readonly data: Float32Array | Float64Array | BigInt64Array
}

/** A node attribute: int, ints, float or tensor. */
export type Attribute =
  | { readonly name: string; readonly int: number }
  | { readonly name: string; readonly ints: ReadonlyArray<number> }
  | { readonly name: string; readonly float: number }
  | { readonly name: string; readonly tensor: Tensor }

/** One operator application. */
export interface Node {
  readonly op: string
  readonly inputs: ReadonlyArray<string>
  readonly outputs: ReadonlyArray<string>
  readonly attributes?: ReadonlyArray<Attribute> | undefined
}

/** A graph input or output: a name, an element type and a shape of sizes or symbolic names. */
export interface ValueInfo {
  readonly name: string
  readonly type: ElemType
  readonly shape: ReadonlyArray<number | string>
}

/** A whole model. */
export interface Model {
  readonly name: string
  readonly opset: number
  readonly nodes: ReadonlyArray<Node>
  readonly initializers: ReadonlyArray<Tensor>
  readonly inputs: ReadonlyArray<ValueInfo>
  readonly outputs: ReadonlyArray<ValueInfo>
  readonly metadata?: Readonly<Record<string, string>> | undefined
}

const tensor = (t: Tensor): Writer => {
  const w = new Writer()
  for (const dim of t.dims) w.int(1, dim)
  w.int(2, DataType[t.type]).string(8, t.name)
  // raw_data is little-endian, which is what every typed array is on the platforms onnxruntime-node ships for.
  return w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength))
}

const attribute = (a: Attribute): Writer => {
  const w = new Writer().string(1, a.name)
  if ("int" in a) return w.int(3, a.int).int(20, 2)
  if ("float" in a) return w.float(2, a.float).int(20, 1)
  if ("tensor" in a) return w.message(5, tensor(a.tensor)).int(20, 4)
  for (const v of a.ints) w.int(8, v)
  return w.int(20, 7)
}

const node = (n: Node, index: number): Writer => {
  const w = new Writer()
  for (const input of n.inputs) w.string(1, input)
  for (const output of n.outputs) w.string(2, output)
  w.string(3, `${n.op}_${index}`).string(4, n.op)
  for (const a of n.attributes ?? []) w.message(5, attribute(a))
  return w
}

const valueInfo = (v: ValueInfo): Writer => {
  const shape = new Writer()
  for (const dim of v.shape)
    shape.message(1, typeof dim === "number" ? new Writer().int(1, dim) : new Writer().string(2, dim))
  const tensorType = new Writer().int(1, DataType[v.type]).message(2, shape)
  return new Writer().string(1, v.name).message(2, new Writer().message(1, tensorType))
}

/** Encodes a model as ONNX protobuf bytes (IR version 8). */
export const encode = (model: Model): Uint8Array => {
  const graph = new Writer()
  model.nodes.forEach((n, i) => {
    graph.message(1, node(n, i))
  })
  graph.string(2, model.name)
  for (const t of model.initializers) graph.message(5, tensor(t))
  for (const v of model.inputs) graph.message(11, valueInfo(v))
  for (const v of model.outputs) graph.message(12, valueInfo(v))
  const out = new Writer()
    .int(1, 8)
    .string(2, "@heed/gpu")
    .string(3, "0.1.0")
    .message(7, graph)
    .message(8, new Writer().string(1, "").int(2, model.opset))
  for (const [key, value] of Object.entries(model.metadata ?? {})) {
    out.message(14, new Writer().string(1, key).string(2, value))
  }
  return out.finish()
}

/**
 * Builds a node list with generated value names, so graph definitions read like the formulas they encode:
 * `const dot = g.op("MatMul", [x, y])`.
 */
export class GraphBuilder {
  readonly nodes: Array<Node> = []
  readonly initializers: Array<Tensor> = []
  private count = 0

  /** Adds one node with a single output and returns the output's name. */
  op(op: string, inputs: ReadonlyArray<string>, attributes?: ReadonlyArray<Attribute>): string {
    const output = `${op.toLowerCase()}_${this.count++}`
    this.nodes.push({ op, inputs, outputs: [output], attributes })
    return output
  }

  /** Adds one node writing to a chosen output name (a graph output). */
  opInto(output: string, op: string, inputs: ReadonlyArray<string>, attributes?: ReadonlyArray<Attribute>): string {
    this.nodes.push({ op, inputs, outputs: [output], attributes })
    return output
  }

  /** Adds a constant and returns its name. */
  constant(type: ElemType, dims: ReadonlyArray<number>, values: ArrayLike<number>): string {
    const name = `const_${this.count++}`
    const data =
      type === "int64"
        ? BigInt64Array.from(Array.from(values, (v) => BigInt(v)))
        : type === "double"
          ? Float64Array.from(values)
          : Float32Array.from(values)
    this.initializers.push({ name, type, dims, data })
    return name
  }

  /** A scalar constant. */
  scalar(type: "float" | "double", value: number): string {
    return this.constant(type, [], [value])
  }

  /** A 1-D int64 constant, as operators take axes and shapes. */
  ints(values: ReadonlyArray<number>): string {
    return this.constant("int64", [values.length], values)
  }
}
