"""Clinical context (age, diagnoses, medications) and vital-sign findings."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from services.analysis.rules.document import MAX_DESCRIPTION_CHARS, dedupe
from services.numbers import whole_number

MAX_CONTEXT_ITEMS = 20

# Vital-sign limits for an adult at rest.
HEART_RATE_HIGH = 100
HEART_RATE_LOW = 50
SYSTOLIC_HIGH = 140
DIASTOLIC_HIGH = 90
SYSTOLIC_LOW = 90
DIASTOLIC_LOW = 60
RESPIRATORY_RATE_HIGH = 20
RESPIRATORY_RATE_LOW = 12
SPO2_LOW = 92
FEVER_CELSIUS = 38.0
FEVER_FAHRENHEIT = 100.4
# Temperatures above this are taken to be Fahrenheit.
CELSIUS_FAHRENHEIT_SPLIT = 50
BMI_HIGH = 30.0
BMI_LOW = 18.5


# ---------------------------------------------------------------------------------------------
# Context and vital signs
# ---------------------------------------------------------------------------------------------

def context_strings(context: Mapping, key: str) -> list[str]:
    value = context.get(key)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return []
    items = [" ".join(str(item).split()) for item in value if isinstance(item, str | int)]
    return dedupe([item[:MAX_DESCRIPTION_CHARS] for item in items])[:MAX_CONTEXT_ITEMS]


def patient_age(context: Mapping) -> int | None:
    value = context.get("patient_age", context.get("age"))
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value) if math.isfinite(value) else None
    return whole_number(value, max_digits=3, signed=False) if isinstance(value, str) else None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = re.match(r"\s*(-?\d+(?:\.\d+)?)", value)
        return float(match.group(1)) if match else None
    return None


def _vital(vitals: Mapping, *keys: str) -> float | None:
    for key in keys:
        if key in vitals:
            return _number(vitals[key])
    return None


def _blood_pressure(vitals: Mapping) -> tuple[float, float] | None:
    value = vitals.get("blood_pressure", vitals.get("bloodPressure", vitals.get("bp")))
    if isinstance(value, str):
        match = re.match(r"\s*(\d{2,3})\s*/\s*(\d{2,3})", value)
        if match:
            return float(match.group(1)), float(match.group(2))
    systolic = _vital(vitals, "systolic", "systolic_bp")
    diastolic = _vital(vitals, "diastolic", "diastolic_bp")
    if systolic is not None and diastolic is not None:
        return systolic, diastolic
    return None


def _fmt(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


def vital_findings(vitals: Mapping) -> list[str]:
    findings = []
    heart_rate = _vital(vitals, "heart_rate", "heartRate", "hr", "pulse")
    if heart_rate is not None and heart_rate > HEART_RATE_HIGH:
        findings.append(f"Elevated heart rate ({_fmt(heart_rate)} bpm)")
    elif heart_rate is not None and heart_rate < HEART_RATE_LOW:
        findings.append(f"Low heart rate ({_fmt(heart_rate)} bpm)")
    pressure = _blood_pressure(vitals)
    if pressure is not None:
        systolic, diastolic = pressure
        reading = f"{_fmt(systolic)}/{_fmt(diastolic)} mmHg"
        if systolic >= SYSTOLIC_HIGH or diastolic >= DIASTOLIC_HIGH:
            findings.append(f"Elevated blood pressure ({reading})")
        elif systolic < SYSTOLIC_LOW or diastolic < DIASTOLIC_LOW:
            findings.append(f"Low blood pressure ({reading})")
    breathing = _vital(vitals, "respiratory_rate", "respiratoryRate", "rr")
    if breathing is not None and not RESPIRATORY_RATE_LOW <= breathing <= RESPIRATORY_RATE_HIGH:
        findings.append(f"Abnormal respiratory rate ({_fmt(breathing)}/min)")
    spo2 = _vital(vitals, "oxygen_saturation", "oxygenSaturation", "spo2", "SpO2", "o2_sat")
    if spo2 is not None and spo2 < SPO2_LOW:
        findings.append(f"Low oxygen saturation ({_fmt(spo2)}%)")
    temperature = _vital(vitals, "temperature", "temp", "temperature_c", "temperature_f")
    if temperature is not None:
        fahrenheit = temperature > CELSIUS_FAHRENHEIT_SPLIT
        if temperature >= (FEVER_FAHRENHEIT if fahrenheit else FEVER_CELSIUS):
            findings.append(f"Fever ({_fmt(temperature)} {'F' if fahrenheit else 'C'})")
    bmi = _vital(vitals, "bmi", "BMI")
    if bmi is not None and (bmi >= BMI_HIGH or bmi < BMI_LOW):
        findings.append(f"BMI outside healthy range ({_fmt(bmi)})")
    return findings
