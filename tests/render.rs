//! The renderer, for real, on an OpenGL context from an EGL device (Mesa's llvmpipe in CI).
//! A test that cannot get a context fails: there is no silent skip.

use plume::camera::OrbitCamera;
use plume::render::context;
use plume::render::volume::VolumeBox;
use plume::render::{Image, Offscreen, RenderSettings, VolumeRenderer};
use plume::sim::Dims;
use std::rc::Rc;

fn gl() -> Rc<glium::backend::Context> {
    context::headless().unwrap_or_else(|e| {
        panic!("no OpenGL context: {e}. The GL tests need Mesa's EGL (libegl1, libegl-mesa0, libgl1-mesa-dri).")
    })
}

const W: u32 = 64;
const H: u32 = 48;

fn unit_box(n: usize) -> VolumeBox {
    VolumeBox {
        min: [0.0; 3],
        max: [1.0; 3],
        h: 1.0 / n as f32,
    }
}

fn settings() -> RenderSettings {
    RenderSettings {
        outline: false,
        jitter: false,
        light_dir: [0.0, 1.0, 0.0],
        ..RenderSettings::default()
    }
}

fn framed(yaw: f32, pitch: f32) -> OrbitCamera {
    let mut c = OrbitCamera::from_degrees([0.0; 3], yaw, pitch, 1.0);
    c.frame([0.0; 3], [1.0; 3], W as f32 / H as f32);
    c
}

fn sphere(n: usize, c: [f32; 3], r: f32) -> Vec<f32> {
    let d = Dims::cube(n);
    let mut v = vec![0.0; d.cells()];
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let p = [i, j, k].map(|x| (x as f32 + 0.5) / n as f32);
                let r2: f32 = (0..3).map(|a| (p[a] - c[a]).powi(2)).sum();
                if r2 < r * r {
                    v[d.idx(i, j, k)] = 1.0;
                }
            }
        }
    }
    v
}

fn render(
    ctx: &Rc<glium::backend::Context>,
    r: &VolumeRenderer,
    cam: &OrbitCamera,
    n: usize,
    s: &RenderSettings,
) -> Image {
    Offscreen::new(ctx, W, H)
        .expect("target")
        .render(ctx, r, cam, &unit_box(n), s)
        .expect("render")
        .0
}

/// The background gradient this image should show at row `y` (from the top), computed here.
fn expected_background(s: &RenderSettings, y: u32) -> [u8; 3] {
    let t = ((H - 1 - y) as f32 + 0.5) / H as f32;
    [0, 1, 2].map(|a| {
        let c = s.background_bottom[a] + t * (s.background_top[a] - s.background_bottom[a]);
        (c * 255.0).round() as u8
    })
}

fn close(a: [u8; 4], b: [u8; 3], tol: u8) -> bool {
    (0..3).all(|i| a[i].abs_diff(b[i]) <= tol)
}

#[test]
fn empty_volume_renders_exactly_the_background() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let s = settings();
    let cam = framed(30.0, 20.0);
    let nothing = render(&ctx, &r, &cam, 16, &s);
    r.upload(&ctx, &vec![0.0; 16 * 16 * 16], Dims::cube(16))
        .expect("upload");
    let empty = render(&ctx, &r, &cam, 16, &s);
    assert!(empty == nothing, "an empty volume changed the image");
    for y in 0..H {
        for x in 0..W {
            let p = empty.pixel(x, y);
            assert!(
                close(p, expected_background(&s, y), 1),
                "pixel ({x},{y}) = {p:?}"
            );
        }
    }
}

#[test]
fn centred_sphere_shows_at_the_centre_not_in_the_corners_and_is_symmetric() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let n = 24;
    r.upload(&ctx, &sphere(n, [0.5; 3], 0.3), Dims::cube(n))
        .expect("upload");
    let s = settings();
    let img = render(&ctx, &r, &framed(0.0, 0.0), n, &s);
    let centre = img.pixel(W / 2, H / 2);
    let bg = expected_background(&s, H / 2);
    assert!(
        (0..3)
            .map(|i| centre[i].abs_diff(bg[i]) as u32)
            .sum::<u32>()
            > 60,
        "centre {centre:?} looks like the background {bg:?}"
    );
    for (x, y) in [(0, 0), (W - 1, 0), (0, H - 1), (W - 1, H - 1)] {
        assert!(
            close(img.pixel(x, y), expected_background(&s, y), 1),
            "corner ({x},{y})"
        );
    }
    // Camera on the z axis, light straight above: the picture is mirror-symmetric in x.
    let mut worst = 0u8;
    for y in 0..H {
        for x in 0..W / 2 {
            let (a, b) = (img.pixel(x, y), img.pixel(W - 1 - x, y));
            for i in 0..3 {
                worst = worst.max(a[i].abs_diff(b[i]));
            }
        }
    }
    assert!(worst <= 3, "left-right asymmetry up to {worst}");
}

fn l_shape(n: usize) -> Vec<f32> {
    let d = Dims::cube(n);
    let mut v = vec![0.0; d.cells()];
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let (x, y, z) = (i * 4 / n, j * 4 / n, k * 4 / n);
                if (x == 1 && (1..3).contains(&y) && z == 1)
                    || (y == 1 && (1..4).contains(&z) && x == 1)
                {
                    v[d.idx(i, j, k)] = 2.0;
                }
            }
        }
    }
    v
}

#[test]
fn orbiting_changes_the_image_of_a_non_symmetric_volume() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let n = 16;
    r.upload(&ctx, &l_shape(n), Dims::cube(n)).expect("upload");
    let s = settings();
    let a = render(&ctx, &r, &framed(0.0, 10.0), n, &s);
    let b = render(&ctx, &r, &framed(90.0, 10.0), n, &s);
    let differing = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            !close(
                a.pixel(x, y),
                {
                    let p = b.pixel(x, y);
                    [p[0], p[1], p[2]]
                },
                8,
            )
        })
        .count();
    assert!(differing > 50, "only {differing} pixels changed");
}

#[test]
fn upload_round_trip_is_exact_and_the_texture_is_reused() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let d = Dims::new(13, 7, 5);
    let data: Vec<f32> = (0..d.cells())
        .map(|i| (i as f32 * 0.37).sin() * 3.0 + 0.001 * i as f32)
        .collect();
    r.upload(&ctx, &data, d).expect("upload");
    for z in 0..d.nz {
        let slice = r.read_slice(&ctx, z).expect("read back");
        let want = &data[z * d.nx * d.ny..(z + 1) * d.nx * d.ny];
        assert_eq!(slice, want, "slice {z}");
    }
    // Same dimensions: the texture is updated in place with the new values.
    let twice: Vec<f32> = data.iter().map(|x| 2.0 * x).collect();
    r.upload(&ctx, &twice, d).expect("second upload");
    assert_eq!(r.texture_dims(), Some(d));
    assert_eq!(r.read_slice(&ctx, 3).expect("read"), &twice[3 * 91..4 * 91]);
    // New dimensions: a new texture.
    let d2 = Dims::new(4, 4, 4);
    r.upload(&ctx, &[1.5; 64], d2).expect("third upload");
    assert_eq!(r.texture_dims(), Some(d2));
    assert_eq!(r.read_slice(&ctx, 0).expect("read"), vec![1.5; 16]);
    assert!(
        r.upload(&ctx, &[1.0; 10], d2).is_err(),
        "wrong length must be refused"
    );
}

fn brightness(img: &Image, x: u32, y: u32) -> u32 {
    let p = img.pixel(x, y);
    p[0] as u32 + p[1] as u32 + p[2] as u32
}

#[test]
fn self_shadowing_darkens_the_far_side_and_can_be_switched_off() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let n = 24;
    r.upload(&ctx, &sphere(n, [0.5; 3], 0.35), Dims::cube(n))
        .expect("upload");
    let lit = RenderSettings {
        shadows: false,
        ..settings()
    };
    let shadowed = settings();
    let cam = framed(0.0, 0.0);
    let a = render(&ctx, &r, &cam, n, &lit);
    let b = render(&ctx, &r, &cam, n, &shadowed);
    // Light from above: with shadows the lower part of the sphere is darker.
    let low = (W / 2, H / 2 + 6);
    assert!(
        brightness(&b, low.0, low.1) + 30 < brightness(&a, low.0, low.1),
        "shadowed {} vs unshadowed {}",
        brightness(&b, low.0, low.1),
        brightness(&a, low.0, low.1)
    );
}

#[test]
fn a_camera_inside_the_volume_sees_the_smoke() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let n = 8;
    r.upload(&ctx, &vec![0.5; n * n * n], Dims::cube(n))
        .expect("upload");
    let s = settings();
    let inside = OrbitCamera::from_degrees([0.5, 0.5, 0.5], 0.0, 0.0, 0.1);
    let img = render(&ctx, &r, &inside, n, &s);
    let p = img.pixel(W / 2, H / 2);
    assert!(
        !close(p, expected_background(&s, H / 2), 10),
        "centre {p:?} is background"
    );
}

#[test]
fn outline_is_drawn_only_when_enabled() {
    let ctx = gl();
    let r = VolumeRenderer::new(&ctx).expect("shaders");
    let cam = framed(30.0, 20.0);
    let off = render(&ctx, &r, &cam, 16, &settings());
    let on = render(
        &ctx,
        &r,
        &cam,
        16,
        &RenderSettings {
            outline: true,
            ..settings()
        },
    );
    let changed = off
        .rgba
        .chunks(4)
        .zip(on.rgba.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 100, "outline changed only {changed} pixels");
}

#[test]
fn images_are_written_as_png_that_decode_back() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    r.upload(&ctx, &sphere(12, [0.5; 3], 0.3), Dims::cube(12))
        .expect("upload");
    let img = render(
        &ctx,
        &r,
        &framed(20.0, 10.0),
        12,
        &RenderSettings::default(),
    );
    let dir = std::env::temp_dir().join(format!("plume-png-{}", std::process::id()));
    let path = dir.join("nested").join("frame.png");
    img.save(&path).expect("write");
    let decoder = png::Decoder::new(std::fs::File::open(&path).expect("file"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png data");
    assert_eq!((info.width, info.height), (W, H));
    assert_eq!(&buf[..info.buffer_size()], &img.rgba[..]);
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().expect("dir"))
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "temporary files left: {leftovers:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn obstacles_are_shaded_as_solids_lit_from_the_light_side_and_hide_smoke_behind() {
    use plume::sim::Obstacle;
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let n = 16;
    r.upload(&ctx, &vec![0.0; n * n * n], Dims::cube(n))
        .expect("upload");
    let s = RenderSettings {
        obstacle_color: [0.8, 0.2, 0.2],
        shadows: false,
        ..settings()
    };
    let cam = framed(0.0, 0.0);
    let before = render(&ctx, &r, &cam, n, &s);
    r.set_obstacles(&ctx, &[Obstacle::sphere([0.5, 0.5, 0.5], 0.25)])
        .expect("obstacles");
    let img = render(&ctx, &r, &cam, n, &s);
    // The centre is opaque and red; the corners still show the background.
    let c = img.pixel(W / 2, H / 2);
    // Seen head-on with the light straight above, the centre gets ambient light only.
    assert!(
        c[0] > 30 && c[0] > 3 * c[1] && c[0] > 3 * c[2],
        "centre {c:?}"
    );
    assert_eq!(img.pixel(0, 0), before.pixel(0, 0));
    // Light from above: the top of the sphere is brighter than its bottom.
    let top = img.pixel(W / 2, H / 2 - 6);
    let bottom = img.pixel(W / 2, H / 2 + 6);
    assert!(top[0] > bottom[0] + 30, "top {top:?}, bottom {bottom:?}");
    // Smoke behind the sphere (far side, −z from a camera on +z) is hidden by it.
    let mut behind = vec![0.0f32; n * n * n];
    let d = Dims::cube(n);
    for k in 0..3 {
        for j in 0..n {
            for i in 0..n {
                behind[d.idx(i, j, k)] = 1.0;
            }
        }
    }
    r.upload(&ctx, &behind, d).expect("upload");
    let with_smoke = render(&ctx, &r, &cam, n, &s);
    assert_eq!(
        with_smoke.pixel(W / 2, H / 2),
        c,
        "smoke behind shows through"
    );
    // A box obstacle works too, and an empty list takes them away again.
    r.set_obstacles(&ctx, &[Obstacle::cuboid([0.5, 0.5, 0.8], [0.4, 0.4, 0.2])])
        .expect("box");
    let boxed = render(&ctx, &r, &cam, n, &s);
    let b = boxed.pixel(W / 2, H / 2);
    assert!(b[0] > 30 && b[0] > 3 * b[1], "box centre {b:?}");
    r.set_obstacles(&ctx, &[]).expect("none");
    let gone = render(&ctx, &r, &cam, n, &s);
    assert_ne!(gone.pixel(W / 2, H / 2), b);
    let too_many = vec![Obstacle::sphere([0.5; 3], 0.1); plume::render::MAX_OBSTACLES + 1];
    assert!(r.set_obstacles(&ctx, &too_many).is_err());
}

/// Streamline segments along a straight line from `a` to `b` (20 points), all one colour.
fn stream(a: [f32; 3], b: [f32; 3]) -> Vec<plume::render::volume::StreamVertex> {
    let line = plume::streamlines::Line {
        points: (0..20)
            .map(|i| {
                let t = i as f32 / 19.0;
                [0, 1, 2].map(|k| a[k] + t * (b[k] - a[k]))
            })
            .collect(),
        speed: vec![1.0; 20],
    };
    plume::render::volume::stream_vertices(&[line], (0.0, 1.0), |_| [1.0, 0.9, 0.2])
}

fn render_streams(
    ctx: &Rc<glium::backend::Context>,
    r: &VolumeRenderer,
    cam: &OrbitCamera,
    s: &RenderSettings,
    segs: &[plume::render::volume::StreamVertex],
) -> Image {
    Offscreen::new(ctx, W, H)
        .expect("target")
        .render_with(ctx, r, cam, &unit_box(16), s, segs)
        .expect("render")
        .0
}

#[test]
fn streamlines_change_the_picture_where_they_are_and_nowhere_else() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    r.upload(&ctx, &vec![0.0; 16 * 16 * 16], Dims::cube(16))
        .expect("upload");
    let cam = framed(30.0, 20.0);
    let s = settings();
    let (a, b) = ([0.2, 0.3, 0.5], [0.8, 0.7, 0.5]);
    let plain = render_streams(&ctx, &r, &cam, &s, &[]);
    let lined = render_streams(&ctx, &r, &cam, &s, &stream(a, b));
    // The line's pixels, projected here with the camera's own maths.
    let on_line: Vec<[f32; 2]> = (0..=400)
        .filter_map(|i| {
            let t = i as f32 / 400.0;
            cam.project([0, 1, 2].map(|k| a[k] + t * (b[k] - a[k])), W, H)
        })
        .collect();
    let mut changed = 0;
    for y in 0..H {
        for x in 0..W {
            let i = 4 * (y * W + x) as usize;
            let d = (0..3)
                .map(|c| plain.rgba[i + c].abs_diff(lined.rgba[i + c]))
                .max()
                .unwrap_or(0);
            if d > 2 {
                changed += 1;
                let near = on_line.iter().any(|p| {
                    (p[0] - (x as f32 + 0.5)).abs() <= 2.5 && (p[1] - (y as f32 + 0.5)).abs() <= 2.5
                });
                assert!(
                    near,
                    "pixel ({x}, {y}) changed by {d} away from the streamline"
                );
            }
        }
    }
    assert!(changed > 15, "the streamline drew only {changed} pixels");
}

/// The largest channel difference the segments make to the picture.
fn line_shows(
    ctx: &Rc<glium::backend::Context>,
    r: &VolumeRenderer,
    cam: &OrbitCamera,
    s: &RenderSettings,
    segs: &[plume::render::volume::StreamVertex],
) -> u8 {
    let plain = render_streams(ctx, r, cam, s, &[]);
    let with = render_streams(ctx, r, cam, s, segs);
    plain
        .rgba
        .iter()
        .zip(&with.rgba)
        .map(|(p, l)| p.abs_diff(*l))
        .max()
        .unwrap_or(0)
}

#[test]
fn smoke_in_front_hides_a_streamline() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let cam = framed(30.0, 20.0);
    let s = settings();
    let segs = stream([0.3, 0.5, 0.5], [0.7, 0.5, 0.5]);
    let diff = |r: &VolumeRenderer| line_shows(&ctx, r, &cam, &s, &segs);
    r.upload(&ctx, &vec![0.0; 16 * 16 * 16], Dims::cube(16))
        .expect("upload");
    let clear = diff(&r);
    // Dense smoke everywhere: optical depth 40 × 0.5 between the eye and the line.
    r.upload(&ctx, &vec![1.0; 16 * 16 * 16], Dims::cube(16))
        .expect("upload");
    let hidden = diff(&r);
    assert!(clear > 100, "in clear air the line shows: {clear}");
    assert!(
        hidden <= 2,
        "behind dense smoke the line must not show: {hidden}"
    );
}

#[test]
fn an_obstacle_in_front_hides_a_streamline() {
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    r.upload(&ctx, &vec![0.0; 16 * 16 * 16], Dims::cube(16))
        .expect("upload");
    let cam = framed(30.0, 20.0);
    let s = settings();
    // A short line at the box's centre, and a sphere between it and the eye.
    let (a, b) = ([0.45, 0.5, 0.5], [0.55, 0.5, 0.5]);
    let segs = stream(a, b);
    let eye = cam.eye();
    let to_eye = [eye.x - 0.5, eye.y - 0.5, eye.z - 0.5];
    let len = (to_eye[0].powi(2) + to_eye[1].powi(2) + to_eye[2].powi(2)).sqrt();
    let lined = |r: &VolumeRenderer| line_shows(&ctx, r, &cam, &s, &segs);
    let clear = lined(&r);
    // A sphere a quarter unit from the line, towards the eye.
    let mid = [0, 1, 2].map(|k| 0.5 + 0.25 * to_eye[k] / len);
    r.set_obstacles(&ctx, &[plume::sim::Obstacle::sphere(mid, 0.12)])
        .expect("obstacle");
    let hidden = lined(&r);
    assert!(clear > 100, "in clear air the line shows: {clear}");
    assert_eq!(hidden, 0, "a line behind an obstacle must not show");
}

#[test]
fn a_moving_turned_obstacle_is_drawn_where_its_keys_put_it_at_the_frames_time() {
    use plume::geometry::Key;
    use plume::sim::Obstacle;
    let ctx = gl();
    let mut r = VolumeRenderer::new(&ctx).expect("shaders");
    let n = 16;
    r.upload(&ctx, &vec![0.0; n * n * n], Dims::cube(n))
        .expect("upload");
    let s = RenderSettings {
        obstacle_color: [0.8, 0.2, 0.2],
        shadows: false,
        ..settings()
    };
    let cam = framed(0.0, 0.0);
    // A thin upright slab that slides from x = 0.25 to 0.75 and turns a quarter turn about z
    // (lying flat at the end).
    let mut slab = Obstacle::cuboid([0.25, 0.5, 0.5], [0.08, 0.5, 0.3]);
    slab.keys = vec![
        Key {
            time: 0.0,
            ..Key::default()
        },
        Key {
            time: 1.0,
            position: Some([0.75, 0.5, 0.5]),
            rotation: Some([0.0, 0.0, 90.0]),
            ..Key::default()
        },
    ];
    r.set_obstacles(&ctx, &[slab]).expect("obstacle");
    // The red pixels' extent: (mean column, columns spanned, rows spanned).
    let mut red = |t: f64| {
        r.set_time(t);
        let img = render(&ctx, &r, &cam, n, &s);
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for y in 0..H {
            for x in 0..W {
                let p = img.pixel(x, y);
                if p[0] > 30 && p[0] > 3 * p[1] {
                    xs.push(x as f32);
                    ys.push(y as f32);
                }
            }
        }
        assert!(!xs.is_empty(), "no obstacle at t = {t}");
        let span = |v: &[f32]| {
            v.iter().cloned().fold(f32::MIN, f32::max) - v.iter().cloned().fold(f32::MAX, f32::min)
        };
        (
            xs.iter().sum::<f32>() / xs.len() as f32,
            span(&xs),
            span(&ys),
        )
    };
    let (x0, w0, h0) = red(0.0);
    let (x1, w1, h1) = red(1.0);
    assert!(
        x0 < W as f32 * 0.45 && x1 > W as f32 * 0.55,
        "moved {x0} -> {x1}"
    );
    // Upright at first (taller than wide), lying at the end (wider than tall).
    assert!(
        h0 > 2.0 * w0 && w1 > 2.0 * h1,
        "turned: {w0}×{h0} -> {w1}×{h1}"
    );
    // The upload of a frame sets the time (a frame at t = 1 puts it at the end).
    let mut f = plume::frame::Frame::empty(
        plume::sim::Grid::unit(Dims::cube(n)).expect("grid"),
        60,
        1.0,
    );
    f.density = Some(vec![0.0; n * n * n]);
    r.set_time(0.0);
    r.upload_frame(&ctx, &f, 1000.0).expect("upload");
    let img = render(&ctx, &r, &cam, n, &s);
    let right = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            x > W / 2 && {
                let p = img.pixel(x, y);
                p[0] > 30 && p[0] > 3 * p[1]
            }
        })
        .count();
    assert!(right > 0, "the frame's time did not move the obstacle");
}
