#!/usr/bin/env python3
"""Writes the test Home Assistant's configuration.yaml and its layout (which area holds which entity).

    generate_config.py <config-dir> --port P [--areas N] [--tls CERT KEY CLIENT_CA]

Every area holds the same 100 entities that need no hardware, so N areas (1 to 10, default 10) hold N x 100:

| domain | per area | what |
|---|---|---|
| input_boolean | 20 | the power of each light and switch below (14), and 6 plugs |
| light | 8 | template lights, on when their input_boolean is on; turn_on/turn_off set it |
| switch | 6 | template switches, the same way |
| input_number | 12 | setpoints, 10 to 30, step 0.5 |
| sensor | 25 | 12 temperatures (setpoint + 0.5), 8 humidities (constant), 5 powers (60 W while a light is on) |
| binary_sensor | 12 | 8 "lit" (a light's power), 4 windows (off) |
| input_select | 5 | modes: Off, Eco, Comfort, Boost |
| input_text | 4 | notes, with an initial value |
| counter | 4 | counters from 0 |
| input_datetime | 2 | alarm times, 07:00 |
| input_button | 2 | doorbells |

Besides, in no area, the catalog's four examples (specs/homeassistant.md §2.1): `input_boolean.porch_light`,
`input_number.thermostat` (10 to 30, step 0.5, initial 20), `sensor.thermostat_doubled` and `binary_sensor.porch_lit`;
on the plain instance also `script.slow`, which runs for 3 s (a call that takes a while), and `script.dropped_call`,
which runs for 30 s (a call whose connection a test cuts while it runs: long enough that its result never comes
before the cut, even under the parallel suite's load).

Every generated entity has a unique id (an input helper's YAML key, a template's `unique_id`), so it is in the entity
registry and can be given its area there: the layout file (`layout.json`: `{"areas": [...], "entities":
{entity_id: area name}}`) is what ha_server.py assigns after the start. The configuration loads no
`default_config:` (which would pull cloud, zeroconf, ssdp, dhcp, bluetooth...), binds http to 127.0.0.1 only and
adds `api`, `websocket_api`, `mobile_app` and `sensor.connected_clients` (the `websocket_api` sensor).

Standard library plus PyYAML (Home Assistant's venv has it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import yaml

AREAS = [
    "Living Room",
    "Kitchen",
    "Bedroom",
    "Hallway",
    "Office",
    "Bathroom",
    "Garage",
    "Garden",
    "Attic",
    "Basement",
]
PER_AREA = 100


def slug(name: str) -> str:
    return name.lower().replace(" ", "_")


def area_entities(area: str) -> tuple[dict[str, dict], dict[str, list], list[str]]:
    """The helpers (domain -> {key: options}), the template sections (domain -> [entity]) and entity ids of an area."""
    a = slug(area)
    helpers: dict[str, dict] = {
        "input_boolean": {},
        "input_number": {},
        "input_select": {},
        "input_text": {},
        "counter": {},
        "input_datetime": {},
        "input_button": {},
    }
    templates: dict[str, list] = {"light": [], "switch": [], "sensor": [], "binary_sensor": []}
    ids: list[str] = []

    def helper(domain: str, key: str, options: dict) -> None:
        helpers[domain][key] = options
        ids.append(f"{domain}.{key}")

    def template(domain: str, name: str, options: dict) -> None:
        object_id = slug(name)
        templates[domain].append({"name": name, "unique_id": f"ck_{domain}_{object_id}", **options})
        ids.append(f"{domain}.{object_id}")

    def power_actions(boolean: str) -> dict:
        return {
            "turn_on": {"action": "input_boolean.turn_on", "target": {"entity_id": boolean}},
            "turn_off": {"action": "input_boolean.turn_off", "target": {"entity_id": boolean}},
        }

    for kind, count, icon in (("light", 8, "mdi:lightbulb"), ("switch", 6, "mdi:toggle-switch")):
        for i in range(1, count + 1):
            key = f"{a}_{kind}_{i}_power"
            helper("input_boolean", key, {"name": f"{area} {kind.title()} {i} power", "icon": icon})
            boolean = f"input_boolean.{key}"
            template(
                kind,
                f"{area} {kind.title()} {i}",
                {"state": f"{{{{ is_state('{boolean}', 'on') }}}}", **power_actions(boolean)},
            )
    for i in range(1, 7):
        helper("input_boolean", f"{a}_plug_{i}", {"name": f"{area} Plug {i}", "icon": "mdi:power-plug"})
    for i in range(1, 13):
        key = f"{a}_setpoint_{i}"
        helper(
            "input_number",
            key,
            {"name": f"{area} Setpoint {i}", "min": 10, "max": 30, "step": 0.5, "initial": 18 + i / 2},
        )
        template(
            "sensor",
            f"{area} Temperature {i}",
            {
                "state": f"{{{{ (states('input_number.{key}') | float(0) + 0.5) | round(1) }}}}",
                "unit_of_measurement": "°C",
                "device_class": "temperature",
                "state_class": "measurement",
            },
        )
    for i in range(1, 9):
        template(
            "sensor",
            f"{area} Humidity {i}",
            {
                "state": str(40 + i),
                "unit_of_measurement": "%",
                "device_class": "humidity",
                "state_class": "measurement",
            },
        )
    for i in range(1, 6):
        template(
            "sensor",
            f"{area} Power {i}",
            {
                "state": f"{{{{ 60 if is_state('input_boolean.{a}_light_{i}_power', 'on') else 0 }}}}",
                "unit_of_measurement": "W",
                "device_class": "power",
                "state_class": "measurement",
            },
        )
    for i in range(1, 9):
        template(
            "binary_sensor",
            f"{area} Light {i} lit",
            {"state": f"{{{{ is_state('input_boolean.{a}_light_{i}_power', 'on') }}}}", "device_class": "light"},
        )
    for i in range(1, 5):
        template("binary_sensor", f"{area} Window {i}", {"state": "{{ false }}", "device_class": "window"})
    for i in range(1, 6):
        helper(
            "input_select",
            f"{a}_mode_{i}",
            {"name": f"{area} Mode {i}", "options": ["Off", "Eco", "Comfort", "Boost"], "initial": "Eco"},
        )
    for i in range(1, 5):
        helper("input_text", f"{a}_note_{i}", {"name": f"{area} Note {i}", "initial": f"note {i}", "max": 100})
    for i in range(1, 5):
        helper("counter", f"{a}_counter_{i}", {"name": f"{area} Counter {i}", "initial": 0, "step": 1})
    for i in range(1, 3):
        helper(
            "input_datetime",
            f"{a}_alarm_{i}",
            {"name": f"{area} Alarm {i}", "has_date": False, "has_time": True, "initial": "07:00"},
        )
    for i in range(1, 3):
        helper("input_button", f"{a}_doorbell_{i}", {"name": f"{area} Doorbell {i}", "icon": "mdi:doorbell"})
    return helpers, templates, ids


def configuration(port: int, areas: int, tls: tuple[str, str, str] | None) -> tuple[dict, dict]:
    """The configuration (as a dict for YAML) and the layout."""
    scheme = "https" if tls else "http"
    http: dict = {"server_host": "127.0.0.1", "server_port": port}
    if tls:
        http.update(ssl_certificate=tls[0], ssl_key=tls[1], ssl_peer_certificate=tls[2])
    config: dict = {
        "homeassistant": {
            "name": "CI Home",
            "latitude": 52.3731,
            "longitude": 4.8922,
            "elevation": 0,
            "unit_system": "metric",
            "time_zone": "UTC",
            "country": "NL",
            "currency": "EUR",
            "internal_url": f"{scheme}://127.0.0.1:{port}",
        },
        "http": http,
        "api": None,
        "websocket_api": None,
        "mobile_app": None,
        "logger": {"default": "warning"},
        "sensor": [{"platform": "websocket_api"}],
    }
    layout: dict = {"areas": AREAS[:areas], "entities": {}}
    # The catalog's own examples (specs/homeassistant.md §2.1, research §2), word for word and in no area.
    config["input_boolean"] = {"porch_light": {"name": "Porch light", "icon": "mdi:lightbulb"}}
    config["input_number"] = {"thermostat": {"name": "Thermostat", "min": 10, "max": 30, "step": 0.5, "initial": 20}}
    sections: dict[str, list] = {
        "sensor": [
            {
                "name": "Thermostat doubled",
                "unique_id": "thermostat_doubled",
                "unit_of_measurement": "°C",
                "state": "{{ states('input_number.thermostat') | float(0) * 2 }}",
            }
        ],
        "binary_sensor": [
            {
                "name": "Porch lit",
                "unique_id": "porch_lit",
                "state": "{{ is_state('input_boolean.porch_light', 'on') }}",
            }
        ],
    }
    for area in AREAS[:areas]:
        helpers, templates, ids = area_entities(area)
        for domain, entries in helpers.items():
            config.setdefault(domain, {}).update(entries)
        for domain, entities in templates.items():
            sections.setdefault(domain, []).extend(entities)
        layout["entities"].update(dict.fromkeys(ids, area))
    config["template"] = [{domain: entities} for domain, entities in sections.items()]
    if not tls:
        # A call that takes a while (H-ACT-6): calling a script directly waits until it has run. The second is for one
        # test only (a call in flight when its connection is cut, H-ACT-2): a script runs once at a time, so a call of
        # `slow` while another test's runs would be answered at once.
        config["script"] = {
            "slow": {"alias": "Slow", "sequence": [{"delay": {"seconds": 3}}]},
            "dropped_call": {"alias": "Dropped call", "sequence": [{"delay": {"seconds": 30}}]},
        }
    return config, layout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config_dir", type=Path)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--areas", type=int, default=len(AREAS), choices=range(1, len(AREAS) + 1))
    parser.add_argument("--tls", nargs=3, metavar=("CERT", "KEY", "CLIENT_CA"))
    args = parser.parse_args()
    config, layout = configuration(args.port, args.areas, tuple(args.tls) if args.tls else None)
    assert len(layout["entities"]) == PER_AREA * args.areas, len(layout["entities"])
    args.config_dir.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=200)
    (args.config_dir / "configuration.yaml").write_text(text.replace(": null\n", ":\n"), encoding="utf-8")
    (args.config_dir / "layout.json").write_text(json.dumps(layout, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
