"""Scenes from Python: presets, files, values by dotted key, emitters and obstacles, and the
errors a user meets, with the command line's messages."""

import re

import plume
import pytest


def test_presets_and_files_round_trip(tmp_path):
    assert "campfire" in plume.presets()
    scene = plume.Scene.preset("campfire")
    path = tmp_path / "fire.toml"
    scene.save(path)
    again = plume.Scene.load(path)
    assert again == scene
    assert again.to_toml() == scene.to_toml()
    assert plume.Scene.from_toml(scene.to_toml()) == scene


def test_with_size_keeps_the_proportions():
    scene = plume.Scene.preset("campfire")  # 64 by 96 by 64
    assert scene.dims == (64, 96, 64)
    assert scene.with_size(48).dims == (32, 48, 32)
    assert scene.dims == (64, 96, 64), "with_size returns a new scene"
    with pytest.raises(ValueError, match=re.escape("3..=1024")):
        scene.with_size(2)


def test_every_numeric_key_reads_and_takes_its_own_value():
    scene = plume.Scene.preset("campfire")
    keys = scene.keys()
    assert "fluid.vorticity" in keys and "emitter.0.fuel" in keys and "render.smoke_color" in keys
    for key in keys:
        value = scene[key]
        if value is None:
            continue
        copy = scene.copy()
        copy[key] = value
        assert copy == scene, key


def test_values_set_by_key_change_the_scene():
    scene = plume.Scene.preset("campfire")
    scene["fluid.vorticity"] = 2.0
    assert scene["fluid.vorticity"] == 2.0
    assert "vorticity = 2.0" in scene.to_toml()
    scene["emitter.0.velocity"] = (0.0, 0.5, 0.0)
    assert scene["emitter.0.velocity"] == (0.0, 0.5, 0.0)
    scene["fluid.max_substeps"] = 8.0  # whole numbers may come as floats
    assert scene["fluid.max_substeps"] == 8
    assert scene["emitter.0.pulse.period"] is None
    assert scene.get("emitter.0.pulse.period", 1.0) == 1.0


def test_out_of_range_has_the_command_lines_message(tmp_path, cli):
    scene = plume.Scene.preset("plume").with_size(16)
    path = tmp_path / "bad.toml"
    text = re.sub(r"^vorticity = .*$", "vorticity = 200", scene.to_toml(), flags=re.M)
    assert "vorticity = 200" in text
    path.write_text(text)
    p = cli("run", "--scene", path, "--frames", "1", "--out", tmp_path / "out", check=False)
    assert p.returncode != 0
    cli_message = p.stderr.strip().split(": ", 2)[-1]
    with pytest.raises(ValueError) as e:
        scene["fluid.vorticity"] = 200
    assert cli_message == "fluid: vorticity = 200 is outside the allowed range [0, 100]"
    assert str(e.value) == cli_message
    assert scene["fluid.vorticity"] != 200, "a refused value changes nothing"


def test_bad_keys_name_the_close_ones():
    scene = plume.Scene()
    with pytest.raises(KeyError, match=re.escape('did you mean "fluid.vorticity"')):
        scene["fluid.vorticty"]
    with pytest.raises(KeyError, match=re.escape("emitter.0.density")):
        scene["emitter.0.densty"] = 1.0
    with pytest.raises(KeyError):
        scene["emitter.3.density"]
    with pytest.raises(KeyError, match="the presets are"):
        plume.Scene.preset("campfir")


def test_wrong_types_are_type_errors():
    scene = plume.Scene()
    with pytest.raises(TypeError, match="takes a number"):
        scene["fluid.vorticity"] = "lots"
    with pytest.raises(TypeError, match="takes 3 numbers"):
        scene["emitter.0.center"] = 0.5
    with pytest.raises(ValueError, match="not a whole number"):
        scene["fluid.max_substeps"] = 2.5
    with pytest.raises(ValueError, match="not a finite number"):
        scene["fluid.vorticity"] = float("nan")


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        plume.Scene.load(tmp_path / "nothing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text('name = "x"\n[grid]\ndims = [16, 16, 16]\n[fluid]\nfade = -1\n')
    with pytest.raises(ValueError, match=r"broken.toml:5: fluid: fade = -1 is outside"):
        plume.Scene.load(broken)


def test_emitters_and_obstacles_are_small_objects():
    scene = plume.Scene()
    (e,) = scene.emitters
    assert e.shape == "sphere" and len(e.center) == 3
    hot = plume.Emitter(
        shape="box", center=(0.3, 0.1, 0.5), size=(0.1, 0.05, 0.1), density=3.0, temperature=2.0
    )
    scene.emitters = [e, hot]
    assert scene["emitter.1.temperature"] == 2.0
    assert len(scene.emitters) == 2
    with pytest.raises(ValueError, match="density"):
        hot.density = -1.0
    assert hot.density == 3.0, "a refused value changes nothing"
    with pytest.raises(ValueError):
        plume.Emitter(shape="sphere", center=(0.5, 0.5, 0.5), radius=0.1, colour=3)
    post = plume.Obstacle(shape="sphere", center=(0.5, 0.5, 0.5), radius=0.1)
    scene.obstacles = [post]
    assert scene["obstacle.0.radius"] == pytest.approx(0.1)
    assert scene.obstacles[0].to_dict()["shape"] == "sphere"


def test_range_comes_from_the_range_table():
    r = plume.Scene.range("fluid.vorticity")
    assert (r["min"], r["max"], r["default"]) == (0.0, 100.0, 0.0)
    assert plume.Scene.range("emitter.0.pulse.duty")["min_open"] is True
