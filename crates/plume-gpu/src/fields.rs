//! The solver's fields on the card: one shader storage buffer each, and the small ones the
//! reductions and conjugate gradients use. Their sizes are known before anything is
//! allocated, so a grid that cannot fit is refused with both numbers.

use glium::backend::Context;
use glium::buffer::{Buffer, BufferMode, BufferType};
use glium::uniforms::{AsUniformValue, LayoutMismatchError, UniformBlock, UniformValue};
use plume_core::sim::Dims;
use std::rc::Rc;

use crate::kernels::{groups_of, tile_count, DOT_WG, REDUCE_GROUPS};

/// A field of floats on the card.
pub(crate) type Field = Buffer<[f32]>;

/// A field bound to a kernel as its array of floats, or (`vec4`) of `vec4`s: the same bytes,
/// four floats a load (`mg_rows.comp`, `laplace_rows.comp`). glium checks a block's layout against the buffer's
/// type; this says which layout to check.
pub(crate) struct Bound<'a> {
    pub field: &'a Field,
    pub vec4: bool,
}

impl AsUniformValue for Bound<'_> {
    fn as_uniform_value(&self) -> UniformValue<'_> {
        fn floats(block: &glium::program::UniformBlock) -> Result<(), LayoutMismatchError> {
            <[f32] as UniformBlock>::matches(&block.layout, 0)
        }
        fn vec4s(block: &glium::program::UniformBlock) -> Result<(), LayoutMismatchError> {
            <[[f32; 4]] as UniformBlock>::matches(&block.layout, 0)
        }
        let check = if self.vec4 { vec4s } else { floats };
        UniformValue::Block(self.field.as_slice_any(), check)
    }
}

/// The conjugate gradients' figures (see `cg_scalars.comp`).
pub(crate) const SCALARS: usize = 12;

/// The slots of a step's books (see `ledger.rs`).
pub(crate) const LEDGER_SLOTS: usize = 8;

/// Reductions whose partial results fit side by side, read back together (the finite check
/// reduces up to eight fields).
pub(crate) const AT_ONCE: u32 = 8;

/// Every buffer the solver holds. The scratch buffers `r`, `p` and `q` are the conjugate
/// gradients' vectors during the projection (`r` first holds the right-hand side, then the
/// residual, in place), the vorticity's ω during the confinement, and the scalar
/// advection's outputs and MacCormack's φ̂ during that stage; `vel_tmp` (the other set of
/// face arrays: the advection and the vorticity write the new faces there and swap them
/// in) holds the pressure solve's second search direction and its q = A·p (z being in `q`),
/// and the second φ̂: 15 floats a cell in all (the face arrays have one more plane along
/// their axis).
pub(crate) struct Fields {
    pub density: Field,
    pub temperature: Field,
    pub vel: [Field; 3],
    pub vel_tmp: [Field; 3],
    /// The cell-centred velocity, a `vec4` a cell (x, y, z and a zero: a trace reads a
    /// corner in one load), or three floats a cell where `cell_vel_floats`; scratch for the
    /// V-cycle's coarse levels and the diffusion.
    pub cell_vel: Field,
    /// Whether the cell velocity is three floats a cell ([`cell_vel_in_floats`]): the
    /// kernels that read or write it are compiled with `CELL_VEL_FLOATS`.
    pub cell_vel_floats: bool,
    pub pressure: Field,
    pub r: Field,
    pub p: Field,
    pub q: Field,
    /// MacCormack's φ̂ of one velocity component (the largest face array), allocated when
    /// the velocity is first advected that way.
    pub face_scratch: Option<Field>,
    /// Fuel and flame, allocated when something first burns.
    pub fuel: Option<Field>,
    pub flame: Option<Field>,
    pub partial_sum: Buffer<[f64]>,
    pub partial_max: Buffer<[u32]>,
    pub scalars: Buffer<[f64]>,
    pub counter: Buffer<[u32]>,
    /// The pressure solve's largest |residual| (a float's bits), merged by atomics.
    pub largest: Buffer<[u32]>,
    /// The work groups of a dispatch done so far, for its last to finish the conjugate
    /// gradients' figures (`last_group.glsl`; 0 between dispatches).
    pub done: Buffer<[u32]>,
    /// A step's books (`ledger.rs`).
    pub ledger: Buffer<[f64]>,
    /// The scalars' active region, a span a row in four arrays (`active.comp`).
    pub rows: Buffer<[u32]>,
    /// The region's figures: maxima, the reach's face velocities, its cells (`active.comp`).
    pub active: Buffer<[u32]>,
}

/// Words of `Fields::active`.
pub(crate) const ACTIVE_WORDS: usize = 16;

/// The words of `Fields::rows` for a `d` grid: four arrays of two a row, every span empty.
fn empty_rows(d: Dims) -> Vec<u32> {
    [u32::MAX, 0].repeat(4 * d.ny * d.nz)
}

/// The partial results a `d` grid's reductions write, at most: the reductions' side by
/// side, the solve's Laplacian's (one a work group) or the smoother's tiles' (one a tile).
pub(crate) fn partial_slots(d: Dims) -> usize {
    let n = d.cells();
    let tiles = tile_count([d.nx, d.ny, d.nz].map(|v| v as u32)) as usize;
    ((REDUCE_GROUPS * AT_ONCE) as usize)
        .max(groups_of(n, DOT_WG) as usize)
        .max(tiles)
}

/// The largest buffer every driver we have run takes, bytes: llvmpipe (Mesa 22.3) allocates
/// 2³¹ − 4 bytes and refuses 2³¹ with `GL_OUT_OF_MEMORY`, whatever memory is free, and
/// 2³¹ − 1 is the most a signed 32-bit size can say. The cell velocity as `vec4`s of a grid
/// of 2²⁷ cells (512³, the most cells a grid may have) is 2³¹ bytes.
pub(crate) const LARGEST_BUFFER: u64 = i32::MAX as u64;

/// Whether the cell velocity of a grid of `cells` goes three floats a cell rather than a
/// `vec4` (the same values; a trace loads a corner in three loads instead of one): where
/// its `vec4`s would not fit one buffer, that is more than [`LARGEST_BUFFER`] bytes and more
/// than the largest storage block the driver reports (`block`: a driver may allow more), or
/// where `PLUME_GPU_CELL_VEL_FLOATS=1` says so (for the card check's same-bits row).
pub(crate) fn cell_vel_in_floats(cells: u64, block: Option<u64>) -> bool {
    let limit = LARGEST_BUFFER.max(block.unwrap_or(0));
    crate::switches::env_flag("PLUME_GPU_CELL_VEL_FLOATS") == Some(true) || 16 * cells > limit
}

/// Bytes of the fields of a `d` grid (with fuel and flame where something burns), the cell
/// velocity counted as `vec4`s (at most 4 bytes a cell more than where it goes in floats).
pub fn bytes_for(d: Dims, fire: bool) -> u64 {
    let n = d.cells() as u64;
    let faces: u64 = (0..3).map(|a| d.faces(a).cells() as u64).sum();
    // density, temperature, cell velocity (a vec4), pressure, r, p, q; velocity twice;
    // fuel and flame.
    let floats = n * (10 + if fire { 2 } else { 0 }) + faces * 2;
    let small = partial_slots(d) as u64 * 16
        + 8 * (SCALARS + LEDGER_SLOTS) as u64
        + 8
        + 4 * (ACTIVE_WORDS + 8 * d.ny * d.nz) as u64;
    floats * 4 + small
}

/// How much of `up_to` bytes the card would allocate now: blocks of 64 MiB allocated one
/// after another until the driver refuses one (or `up_to` is reached), then freed. Where a
/// driver reports no free memory this is what "free" can mean; a driver that allocates
/// lazily may grant more than it has.
pub(crate) fn allocatable(ctx: &Rc<Context>, up_to: u64) -> u64 {
    const BLOCK: usize = 64 << 20;
    let mut held = Vec::new();
    let mut total = 0u64;
    while total < up_to {
        let block = BLOCK.min((up_to - total) as usize).max(4);
        match Buffer::<[u8]>::empty_unsized(
            ctx,
            BufferType::ShaderStorageBuffer,
            block,
            BufferMode::Default,
        ) {
            Ok(b) => {
                held.push(b);
                total += block as u64;
            }
            Err(_) => break,
        }
    }
    total
}

/// [`FIELD_MODE`], or `BufferMode::Default` (storage the CPU may map) where the variable
/// `PLUME_GPU_FIELD_BUFFERS` is `default`: for comparing the two on a card.
pub(crate) fn field_mode() -> BufferMode {
    let set = plume_core::environment::value("PLUME_GPU_FIELD_BUFFERS");
    match set.and_then(|v| plume_core::environment::one_of(&v, crate::switches::FIELD_BUFFER_WORDS))
    {
        Some("default") => BufferMode::Default,
        _ => FIELD_MODE,
    }
}

/// Whether an allocation error is the driver running out of memory.
pub(crate) fn out_of_memory(message: &str) -> bool {
    message.contains("OutOfMemory")
}

/// How the fields' buffers are made: immutable storage with no access from the CPU
/// (`glBufferStorage` with no flags), which leaves the driver free to keep them in the
/// card's own memory; glium reads and writes such buffers through a temporary copy, and
/// the solver reads fields back only for frames and states.
pub(crate) const FIELD_MODE: BufferMode = BufferMode::Immutable;

pub(crate) fn floats(ctx: &Rc<Context>, n: usize) -> Result<Field, String> {
    Buffer::empty_unsized(
        ctx,
        BufferType::ShaderStorageBuffer,
        n.max(1) * std::mem::size_of::<f32>(),
        field_mode(),
    )
    .map_err(|e| format!("allocating a field of {n} floats on the card: {e:?}"))
}

impl Fields {
    /// Allocates every buffer of a `d` grid (contents undefined until filled), the cell
    /// velocity as [`cell_vel_in_floats`] says for the driver's largest storage block
    /// `block`, or in floats where the driver refuses its `vec4`s.
    pub fn new(ctx: &Rc<Context>, d: Dims, block: Option<u64>) -> Result<Self, String> {
        let n = d.cells();
        let mut cell_vel_floats = cell_vel_in_floats(n as u64, block);
        let cell_vel = match cell_vel_floats {
            true => floats(ctx, 3 * n)?,
            false => floats(ctx, 4 * n).or_else(|e| {
                cell_vel_floats = true;
                floats(ctx, 3 * n).map_err(|_| e)
            })?,
        };
        let face = |a: usize| floats(ctx, d.faces(a).cells());
        let small = |bytes: usize| {
            (
                BufferType::ShaderStorageBuffer,
                BufferMode::Default,
                bytes.max(4),
            )
        };
        let slots = partial_slots(d);
        let (t, m, b) = small(slots * 8);
        let partial_sum = Buffer::empty_unsized(ctx, t, b, m).map_err(|e| format!("{e:?}"))?;
        // (two spans: the divergence's pass writes its groups' maxima of |rhs| and of the
        // starting residual side by side)
        let (t, m, b) = small(slots * 4 * 2);
        let partial_max = Buffer::empty_unsized(ctx, t, b, m).map_err(|e| format!("{e:?}"))?;
        let scalars = small_from(ctx, &[0.0f64; SCALARS][..])?;
        let counter = small_from(ctx, &[0u32][..])?;
        let largest = small_from(ctx, &[0u32][..])?;
        let done = small_from(ctx, &[0u32][..])?;
        let ledger = small_from(ctx, &[0.0f64; LEDGER_SLOTS][..])?;
        let rows = small_from(ctx, &empty_rows(d)[..])?;
        let active = small_from(ctx, &[0u32; ACTIVE_WORDS][..])?;
        Ok(Self {
            density: floats(ctx, n)?,
            temperature: floats(ctx, n)?,
            vel: [face(0)?, face(1)?, face(2)?],
            vel_tmp: [face(0)?, face(1)?, face(2)?],
            cell_vel,
            cell_vel_floats,
            pressure: floats(ctx, n)?,
            r: floats(ctx, n)?,
            p: floats(ctx, n)?,
            q: floats(ctx, n)?,
            face_scratch: None,
            fuel: None,
            flame: None,
            partial_sum,
            partial_max,
            scalars,
            counter,
            largest,
            done,
            ledger,
            rows,
            active,
        })
    }

    /// The cell-centred velocity bound as the traces read it: a `vec4` a cell, or floats.
    pub fn cell_vel_bound(&self) -> Bound<'_> {
        Bound {
            field: &self.cell_vel,
            vec4: !self.cell_vel_floats,
        }
    }
}

/// A small storage buffer holding `data` (figures, counters, books).
fn small_from<T: Copy + Send + 'static>(
    ctx: &Rc<Context>,
    data: &[T],
) -> Result<Buffer<[T]>, String>
where
    [T]: glium::buffer::Content,
{
    Buffer::new(
        ctx,
        data,
        BufferType::ShaderStorageBuffer,
        BufferMode::Default,
    )
    .map_err(|e| format!("{e:?}"))
}
