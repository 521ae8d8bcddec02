//! The pass over cells both scalar schemes run: RK2 traces from the cells' centres, a chunk
//! of planes at a time through the sampler's window, over the active region when there is
//! one.

use super::*;

/// One row of each output of [`cell_pass`].
type RowOut<'a, const N: usize, const M: usize> = ([&'a mut [f32]; N], [&'a mut [u32]; M]);

/// Runs `f(trace ends, index of the first cell traced, part of a row of dst, of aux, scratch
/// of 2·N·nx values)` for the cells of every row, in parallel over rows a chunk of planes at a
/// time (see [`VelSampler::chunks`]): `f` writes the N values of the cells traced to the rows
/// of the N arrays of `dst` and their M codes to those of `aux`. The traces are the
/// second-order (RK2) ones from the cells' centres over `k` cells per unit velocity (−k_dt
/// backwards, +k_dt forwards), x, y and z of their ends in array coordinates (cell i's sample
/// sits at i), cut at solid cells when `solid` is given. With a `region` (see
/// [`super::active`]), only the cells in each row's span are traced and the others of `dst`
/// get `fill` (their `aux` is left as it was); chunks without a cell to trace skip the
/// window, and the others fill it only over the rows and columns their traces reach.
#[allow(clippy::too_many_arguments)]
pub(super) fn cell_pass<const N: usize, const M: usize>(
    dst: [&mut [f32]; N],
    aux: [&mut [u32]; M],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    k: f32,
    solid: Option<&[u8]>,
    region: Option<&Region>,
    fill: [f32; N],
    f: impl Fn([&[f32]; 3], usize, [&mut [f32]; N], [&mut [u32]; M], &mut [f32]) + Sync,
) {
    let d = vel.dims;
    for o in &dst {
        assert_eq!(o.len(), d.cells());
    }
    for o in &aux {
        assert_eq!(o.len(), d.cells());
    }
    let nx = d.nx;
    let span = |r: usize| region.map_or([0, nx as u32], |g| g.spans[r]);
    if let Some(g) = region {
        assert_eq!(g.spans.len(), d.ny * d.nz);
        assert!(g.spans.iter().all(|&[a, b]| a >= b || b as usize <= nx));
    }
    // Where the window is needed: every cell of the planes without a region; with one, the
    // box of the cells traced in the chunk widened by the traces' reach (a trace's start,
    // midpoint and the cells interpolated there lie within it), nowhere if none is traced.
    let need = |c0: usize, c1: usize| {
        let Some(g) = region else {
            return Some(whole_area(d));
        };
        let (mut x, mut y) = ([usize::MAX, 0], [usize::MAX, 0]);
        for r in c0 * d.ny..c1 * d.ny {
            let (a, b) = traced(span(r), nx);
            if a < b {
                let j = r % d.ny;
                x = [x[0].min(a), x[1].max(b)];
                y = [y[0].min(j), y[1].max(j + 1)];
            }
        }
        let [rx, ry, _] = g.reach;
        (x[0] < x[1]).then(|| {
            [
                [x[0].saturating_sub(rx), x[1].saturating_add(rx).min(nx)],
                [y[0].saturating_sub(ry), y[1].saturating_add(ry).min(d.ny)],
            ]
        })
    };
    let (mut dst, mut aux) = (dst, aux);
    vs.chunks_where(vel, d.nz, need, |c0, c1, win| {
        // One entry per row of this chunk holding that row of every output.
        let len = (c1 - c0) * nx * d.ny;
        let mut di = dst.each_mut().map(|a| split_front(a, len).chunks_mut(nx));
        let mut ai = aux.each_mut().map(|a| split_front(a, len).chunks_mut(nx));
        let rows: Vec<RowOut<'_, N, M>> = (0..(c1 - c0) * d.ny)
            .map(|_| {
                (
                    std::array::from_fn(|n| di[n].next().expect("one row per (y, z)")),
                    std::array::from_fn(|n| ai[n].next().expect("one row per (y, z)")),
                )
            })
            .collect();
        rows.into_par_iter().enumerate().for_each_init(
            || vec![0.0f32; (6 + 2 * N) * nx],
            |sc, (r, (mut out, out2))| {
                let (j, kz) = (r % d.ny, c0 + r / d.ny);
                let (a, b) = traced(span(j + d.ny * kz), nx);
                for (o, v) in out.iter_mut().zip(fill) {
                    o[..a].fill(v);
                    o[b..].fill(v);
                }
                let Some(win) = win.filter(|_| a < b) else {
                    return;
                };
                let m = b - a;
                let (sc, spare) = sc.split_at_mut(6 * nx);
                let [ex, ey, ez] = runs(sc, m);
                // The start velocity at the cell centres: the window holds it.
                let [ux, uy, uz] = win.cells_row(j, kz).map(|c| &c[a..b]);
                let p0 = [0.0, j as f32, kz as f32];
                trace16::rk2_row(win, a, p0, [ux, uy, uz], k, [ex, ey, ez]);
                if let Some(s) = solid {
                    for e in 0..m {
                        let p = [(a + e) as f32, j as f32, kz as f32];
                        let end = stop_at_solid(s, d, p, [ex[e], ey[e], ez[e]]);
                        (ex[e], ey[e], ez[e]) = (end[0], end[1], end[2]);
                    }
                }
                let out = out.each_mut().map(|o| &mut o[a..b]);
                let out2 = out2.map(|o| &mut o[a..b]);
                f([ex, ey, ez], d.idx(a, j, kz), out, out2, spare);
            },
        );
    });
}

/// The cells of a row traced for its span `s` (`(0, 0)`: none): whole runs of sixteen where
/// the row allows (the vector path's width; the cells added are worked out as any others).
fn traced(s: Span, nx: usize) -> (usize, usize) {
    let [a, b] = s.map(|x| x as usize);
    if a < b {
        let m = (b - a).next_multiple_of(16).min(nx);
        let b = (a + m).min(nx);
        (b - m, b)
    } else {
        (0, 0)
    }
}
