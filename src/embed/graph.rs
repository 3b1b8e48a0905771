//! The model's ONNX graph, rewritten before ONNX Runtime loads it. PyTorch exports attention with
//! its softmax wrapped in `Where(IsNaN(p), 0, p)`, for rows whose every key is masked; a text always
//! has its own tokens to attend to, so no row is, and the two nodes only cost time (a seventh of
//! it, measured). The rewrite removes them and changes nothing else: every field it does not read
//! is carried through as the bytes it was read from.

use std::collections::{HashMap, HashSet};

use prost::Message;

/// `ModelProto` of onnx.proto: the graph decoded, every other field kept as it was.
#[derive(Clone, PartialEq, Message)]
struct Model {
    #[prost(int64, tag = "1")]
    ir_version: i64,
    #[prost(string, tag = "2")]
    producer_name: String,
    #[prost(string, tag = "3")]
    producer_version: String,
    #[prost(string, tag = "4")]
    domain: String,
    #[prost(int64, tag = "5")]
    model_version: i64,
    #[prost(string, tag = "6")]
    doc_string: String,
    #[prost(message, optional, tag = "7")]
    graph: Option<Graph>,
    #[prost(bytes = "vec", repeated, tag = "8")]
    opset_import: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "14")]
    metadata_props: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "20")]
    training_info: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "25")]
    functions: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "26")]
    configuration: Vec<Vec<u8>>,
}

/// `GraphProto`: the nodes decoded, the rest kept as bytes.
#[derive(Clone, PartialEq, Message)]
struct Graph {
    #[prost(message, repeated, tag = "1")]
    node: Vec<Node>,
    #[prost(string, tag = "2")]
    name: String,
    #[prost(bytes = "vec", repeated, tag = "5")]
    initializer: Vec<Vec<u8>>,
    #[prost(string, tag = "10")]
    doc_string: String,
    #[prost(bytes = "vec", repeated, tag = "11")]
    input: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "12")]
    output: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "13")]
    value_info: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "14")]
    quantization_annotation: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "15")]
    sparse_initializer: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "16")]
    metadata_props: Vec<Vec<u8>>,
}

/// `NodeProto`: inputs, outputs and operator decoded, attributes kept as bytes.
#[derive(Clone, PartialEq, Message)]
struct Node {
    #[prost(string, repeated, tag = "1")]
    input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    output: Vec<String>,
    #[prost(string, tag = "3")]
    name: String,
    #[prost(string, tag = "4")]
    op_type: String,
    #[prost(bytes = "vec", repeated, tag = "5")]
    attribute: Vec<Vec<u8>>,
    #[prost(string, tag = "6")]
    doc_string: String,
    #[prost(string, tag = "7")]
    domain: String,
    #[prost(string, tag = "8")]
    overload: String,
    #[prost(bytes = "vec", repeated, tag = "9")]
    metadata_props: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "10")]
    device_configurations: Vec<Vec<u8>>,
}

/// `ValueInfoProto`, for its name only.
#[derive(Clone, PartialEq, Message)]
struct ValueInfo {
    #[prost(string, tag = "1")]
    name: String,
}

/// The graph of `model` (an ONNX file's bytes) without the masked-softmax guards; the model as it
/// was if it has none.
pub fn without_softmax_guards(model: &[u8]) -> Result<Vec<u8>, prost::DecodeError> {
    let mut decoded = Model::decode(model)?;
    let Some(graph) = decoded.graph.as_mut() else {
        return Ok(model.to_vec());
    };
    let producer: HashMap<&str, usize> = graph
        .node
        .iter()
        .enumerate()
        .flat_map(|(i, n)| n.output.iter().map(move |o| (o.as_str(), i)))
        .collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for name in graph.node.iter().flat_map(|n| &n.input) {
        *uses.entry(name.as_str()).or_default() += 1;
    }
    let graph_outputs: HashSet<String> = graph
        .output
        .iter()
        .filter_map(|o| ValueInfo::decode(o.as_slice()).ok())
        .map(|v| v.name)
        .collect();
    // Where(IsNaN(p), c, p): its users read p instead.
    let mut replaced: HashMap<String, String> = HashMap::new();
    let mut dropped: HashSet<usize> = HashSet::new();
    for (i, node) in graph.node.iter().enumerate() {
        let [condition, _, kept] = node.input.as_slice() else {
            continue;
        };
        let Some(&guard) = producer.get(condition.as_str()) else {
            continue;
        };
        let is_nan = &graph.node[guard];
        if node.op_type == "Where"
            && node.domain.is_empty()
            && is_nan.op_type == "IsNaN"
            && is_nan.domain.is_empty()
            && is_nan.input.first() == Some(kept)
            && uses.get(condition.as_str()) == Some(&1)
            && node.output.len() == 1
            && !graph_outputs.contains(&node.output[0])
        {
            replaced.insert(node.output[0].clone(), kept.clone());
            dropped.extend([i, guard]);
        }
    }
    if dropped.is_empty() {
        return Ok(model.to_vec());
    }
    let mut index = 0;
    graph.node.retain(|_| {
        index += 1;
        !dropped.contains(&(index - 1))
    });
    for input in graph.node.iter_mut().flat_map(|n| n.input.iter_mut()) {
        if let Some(kept) = replaced.get(input) {
            *input = kept.clone();
        }
    }
    Ok(decoded.encode_to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str, input: &[&str], output: &str) -> Node {
        Node {
            op_type: op.into(),
            input: input.iter().map(|s| s.to_string()).collect(),
            output: vec![output.into()],
            ..Node::default()
        }
    }

    fn model(nodes: Vec<Node>) -> Vec<u8> {
        Model {
            ir_version: 8,
            opset_import: vec![b"\x10\x11".to_vec()],
            graph: Some(Graph {
                node: nodes,
                initializer: vec![b"opaque tensor".to_vec()],
                output: vec![b"\x0a\x03out".to_vec()],
                ..Graph::default()
            }),
            ..Model::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn the_guard_goes_and_its_users_read_the_softmax() {
        let before = model(vec![
            node("Softmax", &["scores"], "p"),
            node("IsNaN", &["p"], "nan"),
            node("Where", &["nan", "zero", "p"], "guarded"),
            node("MatMul", &["guarded", "v"], "out"),
        ]);
        let after = Model::decode(without_softmax_guards(&before).unwrap().as_slice()).unwrap();
        let graph = after.graph.unwrap();
        let ops: Vec<&str> = graph.node.iter().map(|n| n.op_type.as_str()).collect();
        assert_eq!(ops, ["Softmax", "MatMul"]);
        assert_eq!(graph.node[1].input, ["p", "v"]);
        assert_eq!(
            graph.initializer,
            [b"opaque tensor".to_vec()],
            "what is not read is kept"
        );
        assert_eq!(after.opset_import, [b"\x10\x11".to_vec()]);
    }

    #[test]
    fn a_guard_read_elsewhere_or_of_another_value_stays() {
        let other_value = model(vec![
            node("IsNaN", &["q"], "nan"),
            node("Where", &["nan", "zero", "p"], "guarded"),
        ]);
        assert_eq!(without_softmax_guards(&other_value).unwrap(), other_value);
        let read_twice = model(vec![
            node("IsNaN", &["p"], "nan"),
            node("Where", &["nan", "zero", "p"], "guarded"),
            node("Not", &["nan"], "seen"),
        ]);
        assert_eq!(without_softmax_guards(&read_twice).unwrap(), read_twice);
        let an_output = model(vec![
            node("IsNaN", &["p"], "nan"),
            node("Where", &["nan", "zero", "p"], "out"),
        ]);
        assert_eq!(without_softmax_guards(&an_output).unwrap(), an_output);
    }
}
