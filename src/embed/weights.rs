//! The f32 weights the export's int8 ones were rounded from, put back in their place.
//!
//! The int8 export of all-MiniLM-L6-v2 stores the weight of each product as int8 values with a
//! scale per column and casts them back to f32 before the product (`MatMul(x, Mul(Cast(q), s))`),
//! so ONNX Runtime computes in f32 whichever weights it holds. With the originals it runs as fast
//! (measured) and its vectors agree with sentence-transformers' at a cosine of 0.99997 instead of
//! 0.9990. The originals come from the model's safetensors file, in PyTorch's layout (out × in).
//! Each int8 weight `q` (in × out) with scales `s` takes the original `w` it rounds, the one with
//! `|w[n][k] − q[k][n]·s[n]| ≤ s[n]/2` everywhere, so the weights of another model are refused
//! rather than mixed in.

use std::collections::{HashMap, HashSet};

use prost::Message;
use safetensors::{Dtype, SafeTensors};

use super::graph::{Graph, GraphError, Tensor};

/// `TensorProto.DataType` of f32 values.
const FLOAT: i32 = 1;
/// `TensorProto.DataType` of int8 values.
const INT8: i32 = 3;
/// How far past half a step an original may be from its rounding: the slack of f32 arithmetic.
const HALF_STEP: f32 = 0.501;

/// An int8 weight as the graph computes it: `Mul(Cast(q), scale)`.
pub(super) struct Rounded {
    /// The positions of the Cast and the Mul in the graph's nodes.
    pub(super) nodes: [usize; 2],
    /// The Mul's output, the name the original takes.
    pub(super) name: String,
    /// The initializers of the int8 values and of their scales.
    pub(super) values: String,
    pub(super) scales: String,
}

/// Replaces every int8 weight of `graph` cast to f32 before use by its original in `originals` (a
/// safetensors file's bytes). A graph without such weights is left as it is.
pub(super) fn restore_originals(graph: &mut Graph, originals: &[u8]) -> Result<(), GraphError> {
    let initializers = graph.initializer_positions()?;
    let rounded = rounded_weights(graph, &initializers);
    if rounded.is_empty() {
        return Ok(());
    }
    let originals = SafeTensors::deserialize(originals).map_err(|e| GraphError::NotSafetensors(e.to_string()))?;
    let mut candidates: Vec<(String, safetensors::tensor::TensorView<'_>)> = originals
        .tensors()
        .into_iter()
        .filter(|(_, w)| w.dtype() == Dtype::F32 && w.shape().len() == 2)
        .collect();
    let mut restored = Vec::with_capacity(rounded.len());
    for weight in &rounded {
        let values = Tensor::decode(graph.initializer[initializers[&weight.values]].as_slice())?;
        let scales = Tensor::decode(graph.initializer[initializers[&weight.scales]].as_slice())?;
        let (rows, columns, values) = int8_matrix(&weight.values, &values)?;
        let scales = f32_values(&weight.scales, &scales)?;
        if scales.len() != columns {
            return Err(GraphError::Malformed {
                weight: weight.scales.clone(),
                reason: format!("{} scales for {columns} columns", scales.len()),
            });
        }
        let found = candidates
            .iter()
            .position(|(_, w)| w.shape() == [columns, rows] && rounds_to(w.data(), &values, &scales))
            .ok_or_else(|| GraphError::NoOriginal {
                weight: weight.values.clone(),
            })?;
        let (_, original) = candidates.swap_remove(found);
        restored.push(
            Tensor {
                dims: vec![rows as i64, columns as i64],
                data_type: FLOAT,
                name: weight.name.clone(),
                raw_data: transposed(original.data(), columns, rows),
                ..Tensor::default()
            }
            .encode_to_vec(),
        );
    }
    let nodes: HashSet<usize> = rounded.iter().flat_map(|w| w.nodes).collect();
    let dropped: HashSet<usize> = rounded
        .iter()
        .flat_map(|w| [initializers[&w.values], initializers[&w.scales]])
        .collect();
    graph.remove_nodes(&nodes);
    graph.remove_initializers(&dropped);
    graph.initializer.extend(restored);
    Ok(())
}

/// The `Mul(Cast(q), scale)` of `graph` that are the weights of products (`MatMul(x, ·)`), whose q
/// and scale are initializers read there only. (The word embeddings are int8 too, scaled by row
/// for a lookup; they stay as they are.)
pub(super) fn rounded_weights(graph: &Graph, initializers: &HashMap<String, usize>) -> Vec<Rounded> {
    let producer = graph.producers();
    let uses = graph.readers();
    let read_once = |name: &str| uses.get(name) == Some(&1);
    let products: HashSet<&str> = graph
        .node
        .iter()
        .filter(|n| n.op_type == "MatMul" && n.domain.is_empty())
        .filter_map(|n| n.input.get(1).map(String::as_str))
        .collect();
    graph
        .node
        .iter()
        .enumerate()
        .filter_map(|(m, mul)| {
            let [cast_output, scales] = mul.input.as_slice() else {
                return None;
            };
            let [name] = mul.output.as_slice() else {
                return None;
            };
            let &c = producer.get(cast_output.as_str())?;
            let cast = &graph.node[c];
            let [values] = cast.input.as_slice() else {
                return None;
            };
            let is_rounded = mul.op_type == "Mul"
                && mul.domain.is_empty()
                && cast.op_type == "Cast"
                && cast.domain.is_empty()
                && initializers.contains_key(values)
                && initializers.contains_key(scales)
                && products.contains(name.as_str())
                && [name, cast_output, values, scales].iter().all(|n| read_once(n));
            is_rounded.then(|| Rounded {
                nodes: [c, m],
                name: name.clone(),
                values: values.clone(),
                scales: scales.clone(),
            })
        })
        .collect()
}

/// The rows, columns and values of the int8 matrix `tensor`, named `name`.
fn int8_matrix(name: &str, tensor: &Tensor) -> Result<(usize, usize, Vec<i8>), GraphError> {
    let malformed = |reason: &str| GraphError::Malformed {
        weight: name.to_string(),
        reason: reason.to_string(),
    };
    let &[rows, columns] = tensor.dims.as_slice() else {
        return Err(malformed("not a matrix"));
    };
    let (rows, columns) = (usize::try_from(rows), usize::try_from(columns));
    let (Ok(rows), Ok(columns)) = (rows, columns) else {
        return Err(malformed("a negative dimension"));
    };
    if tensor.data_type != INT8 || tensor.data_location != 0 {
        return Err(malformed("its values are not int8 held in the file"));
    }
    let values: Vec<i8> = if tensor.raw_data.is_empty() {
        tensor.int32_data.iter().map(|&v| v as i8).collect()
    } else {
        tensor.raw_data.iter().map(|&v| v as i8).collect()
    };
    if values.len() != rows * columns {
        return Err(malformed("its values do not fill its dimensions"));
    }
    Ok((rows, columns, values))
}

/// The values of the f32 tensor `tensor`, named `name`.
pub(super) fn f32_values(name: &str, tensor: &Tensor) -> Result<Vec<f32>, GraphError> {
    if tensor.data_type != FLOAT || tensor.data_location != 0 {
        return Err(GraphError::Malformed {
            weight: name.to_string(),
            reason: "its scales are not f32 held in the file".into(),
        });
    }
    if tensor.raw_data.is_empty() {
        Ok(tensor.float_data.clone())
    } else {
        Ok(little_endian_f32(&tensor.raw_data).collect())
    }
}

fn little_endian_f32(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Whether `original` (columns × rows f32, little-endian) rounds to `values` (rows × columns)
/// at `scales` (one per column).
fn rounds_to(original: &[u8], values: &[i8], scales: &[f32]) -> bool {
    let rows = values.len() / scales.len().max(1);
    little_endian_f32(original).enumerate().all(|(i, w)| {
        let (column, row) = (i / rows, i % rows);
        let scale = scales[column];
        (w - f32::from(values[row * scales.len() + column]) * scale).abs() <= scale * HALF_STEP
    })
}

/// `matrix` (rows × columns f32, little-endian) transposed, in the same encoding.
fn transposed(matrix: &[u8], rows: usize, columns: usize) -> Vec<u8> {
    let mut out = vec![0u8; matrix.len()];
    for (i, value) in matrix.chunks_exact(4).enumerate() {
        let (row, column) = (i / columns, i % columns);
        let at = (column * rows + row) * 4;
        out[at..at + 4].copy_from_slice(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::graph::tests::{f32_bytes, node, tensor};
    use super::*;

    /// A product by a 2 × 3 weight held as int8 with a scale per column.
    fn graph() -> Graph {
        let values: [i8; 6] = [10, -20, 30, -40, 50, 127];
        Graph {
            node: vec![
                node("Cast", &["w_q"], "w_f"),
                node("Mul", &["w_f", "w_scale"], "w"),
                node("MatMul", &["x", "w"], "y"),
            ],
            initializer: vec![
                tensor("w_q", &[2, 3], INT8, values.iter().map(|&v| v as u8).collect()),
                tensor("w_scale", &[1, 3], FLOAT, f32_bytes(&[0.1, 0.01, 0.001])),
            ],
            ..Graph::default()
        }
    }

    /// Weights in PyTorch's layout (3 × 2), under `name`, beside an unrelated one of that shape.
    fn originals(name: &str, weight: [f32; 6]) -> Vec<u8> {
        let other = f32_bytes(&[9.0; 6]);
        let weight = f32_bytes(&weight);
        let tensors = [
            (
                "other",
                safetensors::tensor::TensorView::new(Dtype::F32, vec![3, 2], &other).unwrap(),
            ),
            (
                name,
                safetensors::tensor::TensorView::new(Dtype::F32, vec![3, 2], &weight).unwrap(),
            ),
        ];
        safetensors::serialize(tensors, None).unwrap()
    }

    #[test]
    fn each_int8_weight_becomes_the_original_it_rounds() {
        let mut graph = graph();
        // Column n of the int8 weight is row n here: 10 × 0.1 and -40 × 0.1 within half a step.
        let originals = originals("dense.weight", [1.04, -3.96, -0.2, 0.5, 0.03, 0.127]);
        restore_originals(&mut graph, &originals).unwrap();
        let ops: Vec<&str> = graph.node.iter().map(|n| n.op_type.as_str()).collect();
        assert_eq!(ops, ["MatMul"]);
        assert_eq!(graph.node[0].input, ["x", "w"]);
        let [restored] = graph.initializer.as_slice() else {
            panic!("{} initializers", graph.initializer.len());
        };
        let restored = Tensor::decode(restored.as_slice()).unwrap();
        assert_eq!(
            (restored.name.as_str(), restored.dims.as_slice()),
            ("w", &[2i64, 3][..])
        );
        assert_eq!(restored.data_type, FLOAT);
        let values: Vec<f32> = little_endian_f32(&restored.raw_data).collect();
        assert_eq!(values, [1.04, -0.2, 0.03, -3.96, 0.5, 0.127]);
    }

    #[test]
    fn weights_of_another_model_are_refused() {
        let mut graph = graph();
        let originals = originals("dense.weight", [1.2, -3.96, -0.2, 0.5, 0.03, 0.127]);
        let err = restore_originals(&mut graph, &originals).unwrap_err();
        assert!(
            matches!(err, GraphError::NoOriginal { ref weight } if weight == "w_q"),
            "{err}"
        );
        assert_eq!(graph.node.len(), 3, "the graph is left as it was");
    }

    #[test]
    fn a_graph_without_int8_weights_needs_no_originals() {
        let mut graph = Graph {
            node: vec![node("MatMul", &["x", "w"], "y")],
            ..Graph::default()
        };
        restore_originals(&mut graph, b"not a safetensors file").unwrap();
        assert_eq!(graph.node.len(), 1);
    }
}
