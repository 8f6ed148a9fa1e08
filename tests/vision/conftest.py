"""Real image files made for the tests: several formats, modes and sizes, EXIF-rotated,
truncated, a decompression bomb and a text file named .png."""
import struct
import zlib

import numpy as np
import pytest
from PIL import Image


def gradient(w, h):
    """A picture whose every pixel tells where it came from (R = column, G = row)."""
    yy, xx = np.mgrid[0:h, 0:w]
    return np.dstack([(xx * 255 // max(w - 1, 1)), (yy * 255 // max(h - 1, 1)), np.full((h, w), 90)]).astype(np.uint8)


def png_bomb(path, width, height):
    """A tiny valid PNG whose header claims width×height pixels (1-bit): a few hundred bytes
    that would decode to gigabytes."""
    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    comp = zlib.compressobj(9)
    idat = comp.compress(row * 64) + comp.flush()  # only the first rows: it is never decoded
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
    return path


@pytest.fixture
def images(tmp_path):
    made = {}
    rgb = Image.fromarray(gradient(320, 200))
    made["png_rgb"] = tmp_path / "rgb.png"
    rgb.save(made["png_rgb"])
    made["jpeg"] = tmp_path / "photo.jpg"
    rgb.save(made["jpeg"], quality=90)
    made["webp"] = tmp_path / "pic.webp"
    rgb.save(made["webp"])
    made["bmp"] = tmp_path / "pic.bmp"
    rgb.save(made["bmp"])
    made["tiff"] = tmp_path / "pic.tiff"
    rgb.save(made["tiff"])
    rgba = rgb.convert("RGBA")
    alpha = np.zeros((200, 320), np.uint8)
    alpha[:, 160:] = 255
    rgba.putalpha(Image.fromarray(alpha))
    made["rgba"] = tmp_path / "rgba.png"
    rgba.save(made["rgba"])
    made["la"] = tmp_path / "la.png"
    rgba.convert("LA").save(made["la"])
    made["palette"] = tmp_path / "pal.png"
    rgb.convert("P", palette=Image.Palette.ADAPTIVE, colors=16).save(made["palette"])
    made["cmyk"] = tmp_path / "cmyk.jpg"
    rgb.convert("CMYK").save(made["cmyk"])
    g16 = (np.mgrid[0:120, 0:90][1] * 700).astype(np.uint16)  # up to 62,300 of 65,535
    made["gray16"] = tmp_path / "gray16.png"
    Image.fromarray(g16).save(made["gray16"])
    frames = [Image.new("RGB", (64, 48), c) for c in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    made["gif"] = tmp_path / "anim.gif"
    frames[0].save(made["gif"], save_all=True, append_images=frames[1:], duration=100, loop=0)
    # EXIF orientation 6: stored 320 wide × 200 high, shown 200 wide × 320 high.
    exif = Image.Exif()
    exif[0x0112] = 6
    made["exif6"] = tmp_path / "rotated.jpg"
    rgb.save(made["exif6"], exif=exif.tobytes(), quality=95)
    data = made["png_rgb"].read_bytes()
    made["truncated_png"] = tmp_path / "cut.png"
    made["truncated_png"].write_bytes(data[: len(data) // 2])
    jdata = made["jpeg"].read_bytes()
    made["truncated_jpeg"] = tmp_path / "cut.jpg"
    made["truncated_jpeg"].write_bytes(jdata[: len(jdata) // 3])
    made["text"] = tmp_path / "notes.png"
    made["text"].write_text("this is not a picture\n" * 20, encoding="utf-8")
    made["empty"] = tmp_path / "empty.png"
    made["empty"].write_bytes(b"")
    made["bomb"] = png_bomb(tmp_path / "bomb.png", 100_000, 100_000)  # 10 gigapixels
    made["big_claim"] = png_bomb(tmp_path / "big.png", 12_000, 12_000)  # 144 MP, under Pillow's hard limit
    return made
