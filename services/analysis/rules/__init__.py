"""Built-in, deterministic session analysis, used when no hosted model is configured.

``analyze_transcript`` reads a transcript with fixed rules and returns the same JSON shape the
hosted model produces (see ``services.analysis.shape``). The same input always gives the same
output. What it looks for:

* risk: crisis language from ``services.analysis.crisis`` ("high"/"imminent"), otherwise "moderate"
  for softer indicators (hopelessness, worthlessness, heavy substance use, recent loss,
  isolation, firearm access, exposure to suicide), otherwise "low"; the safety floor is
  applied last;
* screener scores (PHQ-9, PHQ-2, GAD-7, GAD-2, PCL-5, AUDIT, AUDIT-C) with standard severity
  bands, and C-SSRS mentions;
* psychiatric medications (generic or brand name) with dose, changes, side effects and
  adherence problems;
* sleep, appetite, mood, anxiety, energy, concentration, trauma and substance findings from
  the patient's own statements (negation-aware);
* homework, follow-ups, referrals and other clinician commitments as tasks and next steps;
* decisions ("we agreed ...", "the plan is to ...") and discussion topics;
* differential diagnoses only where a screener score or a specific symptom pattern supports
  them, plus treatment-plan items and recommendations derived from all of the above.

Who said what matters: symptoms come from patient turns (and unlabelled text), tasks and
decisions from clinician turns (and unlabelled text). Nothing here logs transcript text.

Speed: the text is split into sentences once, with a word index per sentence. Each rule lists
anchor words, and its regex only runs on sentences containing one of them.

One module per section: ``document`` (sentences and the word index), ``screeners``,
``medications``, ``symptoms``, ``risk``, ``tasks``, ``decisions``, ``vitals`` (context and
vital signs), ``plan`` (differentials, plan, recommendations); ``analyzer`` puts them together.
"""

from services.analysis.rules.analyzer import analyze_transcript

__all__ = ["analyze_transcript"]
