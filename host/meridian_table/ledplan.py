"""What the LEDs should show: a colour and an effect for each LED.

The host builds an ``LedPlan`` (by LED index), the link turns it into PLAN/PIX/SHOW
frames (docs/PROTOCOL.md) and the firmware animates the effects by itself.
Plans are immutable and compare by value, so the link can skip an unchanged plan.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from meridian_fw import wire

# The effect letters and the palette size are the wire format's (meridian_fw.wire).
EFFECTS: tuple[str, ...] = tuple(chr(b) for b in wire.EFFECT_LETTERS)
OFF, SOLID, BLINK, FAST_BLINK, PULSE, FLASH = EFFECTS
MAX_PALETTE: int = wire.MAX_PALETTE
PIX_PER_FRAME = 128


@dataclass(frozen=True, order=True)
class Light:
    """One LED's instruction: ``colour`` is 0xRRGGBB, ``effect`` one of EFFECTS."""

    colour: int = 0
    effect: str = OFF

    def __post_init__(self) -> None:
        if self.effect not in EFFECTS:
            raise ValueError(f"LED effect {self.effect!r} is not one of {EFFECTS}")
        if not 0 <= self.colour <= 0xFFFFFF:
            raise ValueError(f"LED colour {self.colour!r} is not 0xRRGGBB")

    @property
    def token(self) -> str:
        """The palette entry on the wire: RRGGBBE."""
        return f"{self.colour:06X}{self.effect}"

    @property
    def is_off(self) -> bool:
        return self.effect == OFF or self.colour == 0


DARK = Light()


@dataclass(frozen=True)
class LedPlan:
    """A colour and an effect for each of ``len(lights)`` LEDs."""

    lights: tuple[Light, ...]

    @classmethod
    def blank(cls, count: int) -> LedPlan:
        return cls((DARK,) * count)

    @classmethod
    def from_mapping(cls, count: int, lights: Mapping[int, Light]) -> LedPlan:
        """A plan with the given LEDs lit and every other LED off."""
        out = [DARK] * count
        for index, light in lights.items():
            if not 0 <= index < count:
                raise ValueError(f"LED index {index} is outside 0..{count - 1}")
            out[index] = light
        return cls(tuple(out))

    def __len__(self) -> int:
        return len(self.lights)

    def palette(self) -> tuple[list[Light], list[int]]:
        """The distinct lights (at most 16) and each LED's index into them."""
        palette: list[Light] = [DARK]
        where: dict[Light, int] = {DARK: 0}
        indices: list[int] = []
        for light in self.lights:
            key = DARK if light.is_off else light
            if key not in where:
                if len(palette) == MAX_PALETTE:
                    raise ValueError(
                        f"an LED plan may use at most {MAX_PALETTE} distinct colour/effect pairs"
                    )
                where[key] = len(palette)
                palette.append(key)
            indices.append(where[key])
        return palette, indices

    def frames(self, gen: int, seq_start: int = 0) -> list[bytes]:
        """The PLAN, PIX... and SHOW frames that stage and show this plan as ``gen``."""
        palette, indices = self.palette()
        seq = seq_start
        out = [wire.encode("PLAN", seq % 65536, (gen, len(indices), ",".join(p.token for p in palette)))]
        for start in range(0, len(indices), PIX_PER_FRAME):
            seq += 1
            chunk = "".join(f"{i:X}" for i in indices[start : start + PIX_PER_FRAME])
            out.append(wire.encode("PIX", seq % 65536, (gen, start, chunk)))
        seq += 1
        out.append(wire.encode("SHOW", seq % 65536, (gen,)))
        return out


def lights_by_index(pairs: Iterable[tuple[int, Light]], count: int) -> LedPlan:
    """Convenience: build a plan from (index, light) pairs."""
    return LedPlan.from_mapping(count, dict(pairs))
