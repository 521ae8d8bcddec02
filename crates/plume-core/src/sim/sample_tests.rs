//! Unit tests of `sim::sample` (a file of their own, as `advect_tests.rs`).

use super::*;

/// `may_blend` says yes exactly where `blend` mixes air into some point of the row: never
/// without a face that lets air in, never for points inside the samples, and for a point
/// beyond a face (also a wall's, whatever `blend` then does there) or NaN.
#[test]
fn may_blend_is_false_only_where_blend_mixes_nothing() {
    let last = [7.0, 5.0, 3.0];
    let open = Exits {
        sides: [[None, None], [None, Some([0.0; 3])], [None, None]],
        solid: None,
    };
    let walls = Exits {
        sides: [[None; 2]; 3],
        solid: None,
    };
    let x = [0.0f32, 3.5, 7.0, 1.0];
    let y = [0.0f32, 5.0, 2.0, 4.9];
    let z = [3.0f32, 0.0, 1.5, 2.0];
    let inside = [&x[..], &y[..], &z[..]];
    let none = |e: &Exits<'_>, p: [&[f32]; 3]| {
        (0..p[0].len()).all(|m| e.blend([p[0][m], p[1][m], p[2][m]], last).is_none())
    };
    assert!(!open.may_blend(inside, last) && none(&open, inside));
    for (axis, v) in [(0, 7.01f32), (1, 5.2), (2, -0.1), (1, f32::NAN)] {
        let mut p = [x, y, z];
        p[axis][2] = v;
        let p = [&p[0][..], &p[1][..], &p[2][..]];
        assert!(open.may_blend(p, last), "axis {axis} at {v}");
        assert!(!walls.may_blend(p, last) && none(&walls, p));
    }
    let mut above = y;
    above[1] = 5.5;
    let p = [&x[..], &above[..], &z[..]];
    assert!(open.may_blend(p, last) && !none(&open, p));
}

/// A trace longer than the grid is wide walks only its part inside the grid: it still stops
/// in front of a solid it crosses, still ends where it ends when it crosses none, and a trace
/// within the grid's width takes exactly the points it always took.
#[test]
fn traces_longer_than_the_grid_walk_only_the_grid() {
    let d = Dims::new(12, 10, 8);
    let mut mask = vec![0u8; d.cells()];
    mask[d.idx(9, 5, 4)] = 1;
    let start = [2.0f32, 5.0, 4.0];
    // Far beyond the grid along +x, through the solid cell: stops in front of it.
    for len in [20.0f32, 1e3, 1e5, 5e6] {
        let end = [start[0] + len, 5.0, 4.0];
        let p = stop_at_solid(&mask, d, start, end);
        assert!(p[0] < 8.5 && p[0] > 7.0, "len {len}: {p:?}");
    }
    // Far beyond the grid along -x, where nothing is solid: the end itself.
    let end = [start[0] - 1e6, 5.0, 4.0];
    assert_eq!(stop_at_solid(&mask, d, start, end), end);
    // Within the width (12 + 2 cells): the walk is the one it always was, half-cell points of
    // the whole trace; the last free point before the solid.
    let end = [start[0] + 13.0, 5.0, 4.0];
    let steps = 26;
    let want = (1..=steps)
        .map(|s| start[0] + 13.0 * s as f32 / steps as f32)
        .take_while(|x| (x + 0.5).floor() < 9.0)
        .last()
        .expect("a free point");
    assert_eq!(stop_at_solid(&mask, d, start, end)[0], want);
}
