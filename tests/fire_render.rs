//! Rendering that glows, for real on an OpenGL context (Mesa's llvmpipe in CI; no silent
//! skip): the campfire's flame pixels are warm, blackbody colour follows temperature (red at
//! 1200 K, near white at 6500 K), a scene without flame has no emission whatever the flame
//! settings, smoke stays neutral grey, the Henyey–Greenstein phase brightens smoke seen
//! towards the light, and exposure brightens the smoke while the background stays exact.

use plume::camera::OrbitCamera;
use plume::frame::{Frame, Select};
use plume::render::context;
use plume::render::volume::VolumeBox;
use plume::render::{Image, Offscreen, RenderSettings, VolumeRenderer};
use plume::scene::Scene;
use plume::sim::{Dims, Grid};
use std::rc::Rc;

fn gl() -> Rc<glium::backend::Context> {
    context::headless().unwrap_or_else(|e| {
        panic!("no OpenGL context: {e}. The GL tests need Mesa's EGL (libegl1, libegl-mesa0, libgl1-mesa-dri).")
    })
}

fn draw(
    ctx: &Rc<glium::backend::Context>,
    frame: &Frame,
    cam: &OrbitCamera,
    s: &RenderSettings,
    (w, h): (u32, u32),
) -> Image {
    let mut r = VolumeRenderer::new(ctx).expect("shaders");
    r.upload_frame(ctx, frame, s.kelvin_per_unit)
        .expect("upload");
    Offscreen::new(ctx, w, h)
        .expect("target")
        .render(ctx, &r, cam, &VolumeBox::of_grid(&frame.grid), s)
        .expect("render")
        .0
}

fn pixels(img: &Image) -> impl Iterator<Item = [f64; 3]> + '_ {
    img.rgba
        .chunks(4)
        .map(|p| [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])])
}

/// Mean colour over the pixels where `a` and `b` differ by more than `tol` (summed over RGB),
/// taken from `a`, and how many there are.
fn mean_where_different(a: &Image, b: &Image, tol: f64) -> ([f64; 3], usize) {
    let mut sum = [0.0; 3];
    let mut n = 0;
    for (p, q) in pixels(a).zip(pixels(b)) {
        if (0..3).map(|c| (p[c] - q[c]).abs()).sum::<f64>() > tol {
            for c in 0..3 {
                sum[c] += p[c];
            }
            n += 1;
        }
    }
    (sum.map(|s| s / n.max(1) as f64), n)
}

/// What the volume pass draws: density, temperature and flame.
const GLOW: Select = Select {
    density: true,
    temperature: true,
    flame: true,
    fuel: false,
    velocity: false,
    pressure: false,
    divergence: false,
    solid: false,
};

fn plain(s: RenderSettings) -> RenderSettings {
    RenderSettings {
        outline: false,
        jitter: false,
        ..s
    }
}

#[test]
fn the_campfire_glows_warm_where_the_flame_is() {
    let ctx = gl();
    let scene = Scene::preset("campfire").expect("ok").with_resolution(32);
    let mut sim = scene.build_simulation().expect("ok");
    for _ in 0..60 {
        sim.step().expect("finite");
    }
    let f = sim.frame(GLOW);
    let size = (96, 128);
    let cam = scene.camera(size.0 as f32 / size.1 as f32);
    let lit = plain(scene.render.clone());
    let dark = RenderSettings {
        flame_intensity: 0.0,
        ..lit.clone()
    };
    let with = draw(&ctx, &f, &cam, &lit, size);
    let without = draw(&ctx, &f, &cam, &dark, size);
    let ([r, g, b], n) = mean_where_different(&with, &without, 30.0);
    assert!(n >= 30, "only {n} pixels show the flame");
    assert!(
        r / b.max(1.0) > 2.0,
        "flame pixels R/B = {} (R {r}, G {g}, B {b})",
        r / b.max(1.0)
    );
    assert!(
        r > g && g > b,
        "flame colours run red > green > blue: {r} {g} {b}"
    );
}

/// A slab of flame 1 at temperature `t` (scene units), no smoke, in a unit box.
fn flame_slab(t: f32) -> Frame {
    let d = Dims::cube(16);
    let mut f = Frame::empty(Grid::unit(d).expect("ok"), 1, 0.0);
    let inside = |i: usize, j: usize, k: usize| {
        (5..11).contains(&i) && (5..11).contains(&j) && (5..11).contains(&k)
    };
    let field = |v: f32| {
        let mut out = vec![0.0; d.cells()];
        for k in 0..16 {
            for j in 0..16 {
                for i in 0..16 {
                    if inside(i, j, k) {
                        out[d.idx(i, j, k)] = v;
                    }
                }
            }
        }
        out
    };
    f.density = Some(vec![0.0; d.cells()]);
    f.temperature = Some(field(t));
    f.flame = Some(field(1.0));
    f
}

#[test]
fn blackbody_colour_follows_the_temperature() {
    let ctx = gl();
    let mut cam = OrbitCamera::from_degrees([0.0; 3], 0.0, 0.0, 1.0);
    cam.frame([0.0; 3], [1.0; 3], 1.0);
    let centre = |t: f32, intensity: f32| {
        let s = plain(RenderSettings {
            flame_intensity: intensity,
            ..RenderSettings::default()
        });
        let img = draw(&ctx, &flame_slab(t), &cam, &s, (48, 48));
        let p = img.pixel(24, 24);
        [p[0], p[1], p[2]].map(f64::from)
    };
    // 1200 K: deep orange-red, no blue. Intensities chosen so neither saturates.
    let warm = centre(1.2, 1.0);
    assert!(
        warm[0] > 100.0 && warm[0] > 1.5 * warm[1] && warm[2] < 0.3 * warm[0],
        "{warm:?}"
    );
    // 6500 K (D65's temperature): close to white.
    let white = centre(6.5, 0.05);
    assert!(white[0] > 60.0, "{white:?}");
    for c in 1..3 {
        assert!((white[c] - white[0]).abs() < 0.15 * white[0], "{white:?}");
    }
    // Below the glow (600 K) nothing is emitted: the pixel is the background.
    let cold = centre(0.6, 1000.0);
    let bg = centre(0.6, 0.0);
    assert_eq!(cold, bg);
}

#[test]
fn without_flame_there_is_no_emission_and_smoke_stays_neutral() {
    let ctx = gl();
    let scene = Scene::default_plume().with_resolution(24);
    let mut sim = scene.build_simulation().expect("ok");
    for _ in 0..60 {
        sim.step().expect("finite");
    }
    let f = sim.frame(GLOW);
    assert!(f.flame.as_ref().expect("ok").iter().all(|&x| x == 0.0));
    let size = (64, 64);
    let cam = scene.camera(1.0);
    let base = plain(scene.render.clone());
    let hot = RenderSettings {
        flame_intensity: 1e4,
        flame_light: 100.0,
        ..base.clone()
    };
    let a = draw(&ctx, &f, &cam, &base, size);
    let b = draw(&ctx, &f, &cam, &hot, size);
    assert_eq!(
        a.rgba, b.rgba,
        "flame settings changed a scene without flame"
    );
    // Smoke pixels: where the picture differs from the empty box. Grey, not tinted.
    let mut empty = f.clone();
    empty.density = Some(vec![0.0; f.grid.dims.cells()]);
    let e = draw(&ctx, &empty, &cam, &base, size);
    let ([r, g, bl], n) = mean_where_different(&a, &e, 60.0);
    assert!(n >= 20, "{n} smoke pixels");
    assert!(
        (r - bl).abs() < 0.08 * r && (g - r).abs() < 0.08 * r,
        "{r} {g} {bl}"
    );
}

/// A ball of smoke in a unit box, seen from +z.
fn ball() -> Frame {
    let d = Dims::cube(24);
    let mut f = Frame::empty(Grid::unit(d).expect("ok"), 1, 0.0);
    let mut v = vec![0.0; d.cells()];
    for k in 0..24 {
        for j in 0..24 {
            for i in 0..24 {
                let p = [i, j, k].map(|x| (x as f32 + 0.5) / 24.0 - 0.5);
                if p.iter().map(|x| x * x).sum::<f32>() < 0.09 {
                    v[d.idx(i, j, k)] = 0.05;
                }
            }
        }
    }
    f.density = Some(v);
    f
}

fn ball_brightness(ctx: &Rc<glium::backend::Context>, light: [f32; 3], g: f32) -> f64 {
    let mut cam = OrbitCamera::from_degrees([0.0; 3], 0.0, 0.0, 1.0);
    cam.frame([0.0; 3], [1.0; 3], 1.0);
    let s = plain(RenderSettings {
        light_dir: light,
        anisotropy: g,
        shadows: false,
        ambient: 0.0,
        ..RenderSettings::default()
    });
    let img = draw(ctx, &ball(), &cam, &s, (32, 32));
    let p = img.pixel(16, 16);
    f64::from(p[0]) + f64::from(p[1]) + f64::from(p[2])
}

#[test]
fn forward_scattering_brightens_smoke_seen_towards_the_light() {
    let ctx = gl();
    let cam_dir = {
        let mut c = OrbitCamera::from_degrees([0.0; 3], 0.0, 0.0, 1.0);
        c.frame([0.0; 3], [1.0; 3], 1.0);
        let e = c.eye();
        let t = c.target;
        let v = [t.x - e.x, t.y - e.y, t.z - e.z];
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|x| x / n)
    };
    // Light behind the ball (towards it = along the view): forward scattering.
    let behind = cam_dir;
    let front = cam_dir.map(|x| -x);
    let (b0, b6) = (
        ball_brightness(&ctx, behind, 0.0),
        ball_brightness(&ctx, behind, 0.6),
    );
    let (f0, f6) = (
        ball_brightness(&ctx, front, 0.0),
        ball_brightness(&ctx, front, 0.6),
    );
    assert!(b6 > b0 + 30.0, "backlit: g = 0.6 gives {b6}, g = 0 {b0}");
    assert!(f6 + 10.0 < f0, "front-lit: g = 0.6 gives {f6}, g = 0 {f0}");
    // g = 0 scatters evenly: the same from both sides.
    assert!((b0 - f0).abs() <= 3.0, "{b0} vs {f0}");
}

#[test]
fn exposure_brightens_the_smoke_and_leaves_the_background_exact() {
    let ctx = gl();
    let mut cam = OrbitCamera::from_degrees([0.0; 3], 20.0, 10.0, 1.0);
    cam.frame([0.0; 3], [1.0; 3], 1.0);
    let at = |ev: f32, tone_map: bool| {
        let s = plain(RenderSettings {
            exposure: ev,
            tone_map,
            ..RenderSettings::default()
        });
        draw(&ctx, &ball(), &cam, &s, (40, 40))
    };
    let (dim, bright) = (at(-1.0, true), at(1.0, true));
    let centre = |i: &Image| i.pixel(20, 20)[0];
    assert!(
        centre(&bright) > centre(&dim) + 20,
        "{} vs {}",
        centre(&bright),
        centre(&dim)
    );
    // Corners show the background: identical at any exposure (within rounding).
    for (x, y) in [(0, 0), (39, 0), (0, 39), (39, 39)] {
        let (a, b) = (dim.pixel(x, y), bright.pixel(x, y));
        assert!((0..3).all(|c| a[c].abs_diff(b[c]) <= 1), "{a:?} vs {b:?}");
    }
    // The tone map rolls highlights off where a plain clip saturates.
    let (clip, filmic) = (at(4.0, false), at(4.0, true));
    assert_eq!(centre(&clip), 255);
    assert!(centre(&filmic) < 255, "{}", centre(&filmic));
}
