"""Built-in note and assessment templates that every fresh database is seeded with.

Each template is a plain dict shaped like a ``models.templates.Template`` row (without the
organization and timestamps). The ``guidance`` text of every section is written for the
clinician and is also passed to the summarising model as the instruction for that section, so
it says what belongs there, what to quote versus paraphrase, and what must never be left out
(risk, screener scores, follow-up).
"""

# Guidance fragments shared by several sections, kept identical so that every format asks for
# risk, screeners and follow-up in the same words.
_RISK = (
    "Always document suicide and homicide risk: record denials explicitly (e.g. \"denies SI/HI, "
    "plan or intent\") and, when risk is present, the level, the factors behind it and the "
    "safety actions taken."
)
_SCREENERS = (
    "Include standardized screener results administered this session (e.g. PHQ-9, GAD-7) with "
    "the total score, severity band and change from the previous score, and note the PHQ-9 "
    "item 9 response whenever a PHQ-9 was given."
)
_PLAN = (
    "Record the next steps for treatment: interventions planned for upcoming sessions, any "
    "homework or between-session tasks, referrals, coordination of care and changes to session "
    "frequency or level of care. Always state the date of the next appointment (or when "
    "follow-up will occur) and any safety-plan actions agreed on."
)
_NO_SPECULATION = (
    "Do not speculate or add content that was not discussed; if something was not assessed, "
    "say so rather than inferring it."
)


def _section(key: str, title: str, guidance: str) -> dict:
    return {"key": key, "title": title, "guidance": guidance}


_SOAP = {
    "id": "tpl_builtin_soap",
    "name": "SOAP progress note",
    "kind": "note",
    "format": "soap",
    "description": (
        "Progress note structured as Subjective, Objective, Assessment and Plan for individual "
        "psychotherapy and medication-management sessions."
    ),
    "sections": [
        _section(
            "subjective",
            "Subjective",
            "Summarize what the client reported this session: presenting concerns, symptoms, "
            "mood in their own words, relevant events since the last session and progress on "
            "homework. Quote the client directly for statements that are clinically significant "
            "(mood, hopelessness, risk, goals) and paraphrase everything else concisely. Keep "
            "this section to the client's perspective and attribute it clearly (\"Client "
            "reports...\").",
        ),
        _section(
            "objective",
            "Objective",
            "Document observable, measurable information: appearance, behavior, speech, affect, "
            "engagement and attendance, described in concrete terms (e.g. \"tearful when "
            "discussing her father\", not \"seemed sad\"). " + _SCREENERS + " Exclude "
            "interpretation; that belongs in Assessment.",
        ),
        _section(
            "assessment",
            "Assessment",
            "Give the clinician's interpretation of the subjective and objective data: current "
            "symptom presentation relative to the diagnosis, progress toward treatment-plan "
            "goals and factors helping or hindering progress. " + _RISK + " "
            + _NO_SPECULATION,
        ),
        _section("plan", "Plan", _PLAN),
    ],
}

_DAP = {
    "id": "tpl_builtin_dap",
    "name": "DAP note",
    "kind": "note",
    "format": "dap",
    "description": (
        "Progress note structured as Data, Assessment and Plan, combining the client's report "
        "and clinician observations in a single data section."
    ),
    "sections": [
        _section(
            "data",
            "Data",
            "Record the factual content of the session: what the client reported, topics "
            "discussed, interventions used and the clinician's observations of affect and "
            "behavior in objective language. Quote the client directly for clinically "
            "significant statements and paraphrase the rest. " + _SCREENERS,
        ),
        _section(
            "assessment",
            "Assessment",
            "State the clinician's interpretation of the data: symptom status, response to "
            "interventions, progress toward treatment-plan goals and any change in functioning. "
            + _RISK + " " + _NO_SPECULATION,
        ),
        _section("plan", "Plan", _PLAN),
    ],
}

_BIRP = {
    "id": "tpl_builtin_birp",
    "name": "BIRP note",
    "kind": "note",
    "format": "birp",
    "description": (
        "Progress note structured as Behavior, Intervention, Response and Plan, emphasizing the "
        "link between clinician interventions and client response."
    ),
    "sections": [
        _section(
            "behavior",
            "Behavior",
            "Describe the client's presentation and the problems addressed: observed behavior, "
            "affect and engagement in objective terms, plus the client's self-reported symptoms "
            "and concerns. Quote clinically significant statements directly. " + _SCREENERS,
        ),
        _section(
            "intervention",
            "Intervention",
            "Document what the clinician did, naming specific techniques and modalities (e.g. "
            "cognitive restructuring, motivational interviewing, grounding, psychoeducation on "
            "sleep hygiene) rather than \"provided support\". Link each intervention to the "
            "treatment-plan goal or objective it addressed.",
        ),
        _section(
            "response",
            "Response",
            "Describe how the client responded to each intervention, using observable evidence "
            "and the client's own words where useful (e.g. \"identified two alternative "
            "thoughts\", \"declined to practice the exercise\"). Note progress toward goals and "
            "any barriers. " + _RISK,
        ),
        _section("plan", "Plan", _PLAN),
    ],
}

_GIRP = {
    "id": "tpl_builtin_girp",
    "name": "GIRP note",
    "kind": "note",
    "format": "girp",
    "description": (
        "Goal-oriented progress note structured as Goals, Intervention, Response and Plan, "
        "anchored to the client's treatment-plan goals."
    ),
    "sections": [
        _section(
            "goals",
            "Goals",
            "List the treatment-plan goals and objectives addressed this session, using the "
            "wording from the treatment plan and the client's own words where they stated a "
            "goal. Briefly note the client's current status relevant to each goal. "
            + _SCREENERS,
        ),
        _section(
            "intervention",
            "Intervention",
            "Document the specific interventions the clinician used toward each goal, naming the "
            "technique or modality (e.g. behavioral activation scheduling, exposure hierarchy "
            "work, DBT distress-tolerance skills). Avoid vague phrases such as \"processed "
            "feelings\" without describing what was done.",
        ),
        _section(
            "response",
            "Response",
            "Describe the client's response to the interventions and measurable progress toward "
            "each goal, using observable evidence and direct quotes for significant statements. "
            "Note barriers or setbacks factually. " + _RISK,
        ),
        _section("plan", "Plan", _PLAN),
    ],
}

_INTAKE = {
    "id": "tpl_builtin_intake",
    "name": "Intake / biopsychosocial assessment",
    "kind": "assessment",
    "format": "biopsychosocial",
    "description": (
        "Comprehensive initial biopsychosocial assessment covering history, mental status, risk, "
        "diagnostic impressions and recommendations for treatment."
    ),
    "sections": [
        _section(
            "presenting_problem",
            "Presenting problem",
            "State the reason for referral and the client's chief complaint, quoting the client's "
            "own description of why they are seeking care. Note the referral source and what the "
            "client hopes to get from treatment.",
        ),
        _section(
            "history_of_present_illness",
            "History of present illness",
            "Describe the onset, duration, frequency and severity of current symptoms, "
            "precipitating stressors and the impact on daily functioning (work, school, "
            "relationships, self-care). Use specific, measurable terms (e.g. \"sleeping 4 hours "
            "a night for 3 weeks\"). " + _SCREENERS,
        ),
        _section(
            "psychiatric_history",
            "Psychiatric history",
            "Summarize prior diagnoses, outpatient treatment, psychiatric hospitalizations, "
            "partial or intensive outpatient programs and past psychiatric medications with "
            "response and side effects. Include dates or approximate timeframes and note what "
            "the client found helpful or unhelpful.",
        ),
        _section(
            "substance_use",
            "Substance use",
            "For each substance (alcohol, cannabis, nicotine, stimulants, opioids, sedatives, "
            "others) record age of first use, current pattern (amount, frequency, route), last "
            "use and consequences. Note withdrawal history, overdoses, prior substance use "
            "treatment and any screener scores (e.g. AUDIT-C, DAST-10); document denials "
            "explicitly.",
        ),
        _section(
            "medical_history",
            "Medical history & medications",
            "List current medical conditions, current medications with dose and prescriber, "
            "allergies and the primary care provider. Note conditions or medications relevant to "
            "mental health (e.g. thyroid disease, chronic pain, head injury, steroids) and the "
            "date of the last physical if known.",
        ),
        _section(
            "family_history",
            "Family history",
            "Record mental health conditions, substance use disorders and suicide or suicide "
            "attempts in biological relatives, specifying the relationship. Note relevant "
            "family medical history and the client's family of origin as described by the "
            "client; record \"unknown\" rather than guessing.",
        ),
        _section(
            "social_history",
            "Social history",
            "Cover relationships and support system, living situation and housing stability, "
            "education and work or school functioning, finances, cultural and spiritual factors, "
            "and legal history (arrests, charges, probation, custody matters). Use objective "
            "descriptions and note stressors and supports in each area.",
        ),
        _section(
            "trauma_history",
            "Trauma history",
            "Document exposure to traumatic events (abuse, neglect, violence, accidents, combat, "
            "loss) at the level of detail the client chose to share, without pressing for or "
            "adding graphic detail. Note age or timeframe, current trauma-related symptoms and "
            "any trauma screener score (e.g. PC-PTSD-5, PCL-5). Record current safety and any "
            "mandated-reporting considerations.",
        ),
        _section(
            "mental_status_exam",
            "Mental status exam",
            "Document appearance, behavior, attitude, speech, mood (quoted in the client's own "
            "words), affect, thought process, thought content, perception, cognition and "
            "orientation, insight and judgment. Use standard descriptive terms based on what was "
            "observed during the interview and note any domain that was not assessed.",
        ),
        _section(
            "risk_assessment",
            "Risk assessment",
            "Using a C-SSRS-informed structure, document suicidal ideation (passive or active, "
            "frequency, most recent), plan, intent, access to means including firearms, past "
            "attempts and self-harm, and protective factors. Also document homicidal ideation "
            "and risk to or from others. Record denials explicitly, state the clinician's overall "
            "risk level with rationale, and note the safety plan, means-restriction counseling "
            "or higher level of care arranged.",
        ),
        _section(
            "strengths",
            "Strengths",
            "List the client's strengths, supports and resources that can be used in treatment "
            "(e.g. motivation, coping skills, employment, supportive relationships, faith "
            "community). Use the client's own words where they named their strengths.",
        ),
        _section(
            "diagnostic_impressions",
            "Diagnostic impressions",
            "Record DSM-5-TR diagnoses with ICD-10-CM codes as stated by the clinician, marking "
            "provisional and rule-out diagnoses as such. Briefly link each diagnosis to the "
            "symptoms and duration that support it. Do not assign or infer a diagnosis the "
            "clinician did not state.",
        ),
        _section(
            "recommendations",
            "Recommendations",
            "State the recommended level of care, modality and session frequency, referrals "
            "(e.g. psychiatric evaluation, medical follow-up, substance use treatment) and any "
            "further assessment needed. Note the client's agreement with the recommendations, "
            "initial homework if given and the date of the next appointment.",
        ),
    ],
}

_TREATMENT_PLAN = {
    "id": "tpl_builtin_treatment_plan",
    "name": "Treatment plan",
    "kind": "note",
    "format": "treatment_plan",
    "description": (
        "Individualized treatment plan linking identified problems to goals, measurable "
        "objectives, interventions, responsible clinicians and review dates."
    ),
    "sections": [
        _section(
            "problem_list",
            "Problem list",
            "List each problem to be addressed in treatment, described in behavioral terms with "
            "its impact on functioning and linked to the relevant diagnosis. Include baseline "
            "measures where available (e.g. PHQ-9 score, panic attacks per week).",
        ),
        _section(
            "long_term_goals",
            "Long-term goals",
            "For each problem, state the broad outcome the client wants to reach, quoting the "
            "client's own words where possible (e.g. \"I want to get back to work\"). Goals "
            "should reflect the client's priorities and be realistic for the planned course of "
            "treatment.",
        ),
        _section(
            "short_term_objectives",
            "Short-term objectives",
            "Write measurable objectives for each goal that are Specific, Measurable, "
            "Achievable, Relevant and Time-bound (e.g. \"Client will reduce PHQ-9 score from 18 "
            "to below 10 within 12 weeks\"). Each objective should describe an observable "
            "behavior or score change and how it will be measured.",
        ),
        _section(
            "interventions",
            "Interventions",
            "For each objective, list the interventions the clinician will provide, naming the "
            "modality and technique (e.g. CBT, exposure and response prevention, DBT skills "
            "group, medication management) and the frequency and duration (e.g. weekly 53-minute "
            "individual sessions). Include homework or between-session practice and referrals.",
        ),
        _section(
            "responsible_clinician",
            "Responsible clinician",
            "Identify the clinician responsible for each intervention by name, credentials and "
            "role (e.g. therapist, psychiatric prescriber, case manager). Note other members of "
            "the care team and coordination of care with outside providers.",
        ),
        _section(
            "target_dates",
            "Target dates / review date",
            "Give a target completion date for each objective and the date the plan will be "
            "formally reviewed, following the clinic's and payer's review interval (commonly "
            "every 90 days or sooner if clinically indicated). Note that the plan will be "
            "updated if risk or clinical status changes.",
        ),
        _section(
            "patient_participation",
            "Patient participation and consent",
            "Document how the client (and guardian, for minors) participated in developing the "
            "plan, including their stated priorities in their own words. Record that the client "
            "agrees with the plan, consents to treatment and was offered a copy, and note any "
            "disagreements or requested changes.",
        ),
    ],
}

BUILTIN_TEMPLATES: tuple[dict, ...] = (
    _SOAP,
    _DAP,
    _BIRP,
    _GIRP,
    _INTAKE,
    _TREATMENT_PLAN,
)
