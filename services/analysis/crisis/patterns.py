"""The phrase patterns of crisis language, with the anchor words that index them.

Each pattern is a regular expression for one C-SSRS kind with the words one of which any match
contains, so that a sentence is run only against the patterns its words can satisfy. Order
matters (``PATTERNS``): where matches overlap, the earlier-starting one wins and, at the same
start, the one listed first. ``phrases`` scans transcripts with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.analysis.crisis.signals import (
    HOMICIDAL_IDEATION,
    INTENT,
    MEANS_ACCESS,
    METHOD,
    PAST_ATTEMPT,
    PLAN,
    SELF_HARM,
    SUICIDAL_IDEATION,
    WISH_TO_BE_DEAD,
)


@dataclass(frozen=True)
class Pattern:
    kind: str
    regex: str
    # Lower-case word groups separated by "|"; every match contains at least one word of each
    # group. A sentence is only run against patterns whose groups it satisfies, which keeps
    # long transcripts fast. The first group indexes the pattern.
    anchors: str
    # Only counts shortly after other suicidal talk ("I have a plan").
    needs_context: bool = False
    # The phrase itself contains a negation ("don't want to live"); skip the negation check.
    negation_in_pattern: bool = False
    # Only counts when the transcript holds another crisis signal (a gun at home).
    needs_corroboration: bool = False
    # An accidental overdose is a substance-use risk, not suicidal behaviour.
    reject_accidental: bool = False
    # Intent to do a concrete act at a stated time or place ("on Friday") is also a plan.
    plan_if_timed: bool = False
    # Chart abbreviations ("SI", "HI") must not match "si" or "Hi".
    case_sensitive: bool = False
    # A bare topic name ("self-harm", "suicidal"); in a question without "I" or "my" it only
    # names the topic ("The self-harm stuff?") and discloses nothing.
    topic_name: bool = False


_PILLS = (
    r"(?:pills|meds|medications?|tablets|tylenol|advil|painkillers|sleeping\s+pills"
    r"|prescriptions?|insulin|oxy\w*|xanax|ambien)"
)
_PILL_WORDS = (
    "pills pill meds medication medications tablets tylenol advil painkillers prescription"
    " prescriptions insulin oxy oxycodone oxycontin xanax ambien bottle"
)
# Whose pills: "my", "my mum's", "Dad's"; the patient takes them all the same.
_OWNER = r"(?:(?:my\s+)?\w+'s\s+|my\s+)?"
_PILL_QUANTITY = (
    r"(?:all\s+(?:of\s+)?(?:my|the|those|these)\s+(?:\w+\s+)?" + _PILLS
    + r"|(?:a\s+)?(?:bunch|handful|bottle|whole\s+bottle|entire\s+bottle)\s+of\s+" + _OWNER
    + r"(?:\w+\s+)?" + _PILLS + r"|the\s+(?:whole|entire)\s+bottle|every\s+pill)"
)
_KILL_MYSELF_IDIOMS = (
    r"(?!\s+(?:for\b|laughing|trying|working|studying|over\s+(?:this|that|it|work)\b"
    r"|at\s+(?:work|the\s+gym|the\s+office|my\s+job|school)\b"
    r"|to\s+(?:get|finish|make|meet|keep|pay|impress|please)\b))"
)
_SELF_ACT = (
    r"(?:kill\s+myself" + _KILL_MYSELF_IDIOMS
    + r"|end\s+(?:my|it)\s+(?:own\s+)?life|end\s+it\s+all|take\s+my\s+(?:own\s+)?life"
    r"|commit\s+suicide|overdose|hang\s+myself|shoot\s+myself|drown\s+myself"
    r"|slit\s+my\s+wrists|jump\s+(?:off|from|in\s+front\s+of)\s+(?:a|the|that)\s+\w+"
    r"|take\s+" + _PILL_QUANTITY + r")"
)
_SELF_ACT_WORDS = "myself life end suicide overdose wrists jump " + _PILL_WORDS
_INTENT_LEAD = (
    r"(?:going\s+to|gonna|I'll|I\s+will|plan(?:ning)?\s+to|intend(?:ing)?\s+to|decided\s+to"
    r"|made\s+up\s+my\s+mind\s+to|ready\s+to|about\s+to|my\s+plan\s+(?:is|was)\s+to)\s+"
    r"(?:(?:just|finally|actually|really|probably|definitely)\s+)?"
)
TIME_OR_PLACE_RE = re.compile(
    r"\b(?:tonight|tomorrow(?:\s+night)?|this\s+(?:weekend|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday)|next\s+(?:week|weekend|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|the\s+weekend|my\s+birthday|the\s+anniversary|the\s+\d{1,2}(?:st|nd|rd|th)?)"
    r"|(?:after|when|once|while)\s+(?:the\s+kids|everyone|everybody|my\s+(?:wife|husband|partner"
    r"|parents|mom|dad|roommate|family))\s+(?:\w+\s+){0,3}?(?:asleep|leaves?|left|gone|goes"
    r"|away|at\s+work|out)|in\s+the\s+garage|at\s+the\s+(?:bridge|lake|river|tracks))\b",
    re.IGNORECASE,
)
_OTHERS = (
    r"(?:him|her|them|someone|somebody|anyone|anybody|people|everyone|everybody|others"
    r"|other\s+people|(?:my|his|her|that|this|the)\s+(?:\w+\s+)?(?:boss|husband|wife|partner|ex"
    r"|father|dad|stepdad|stepfather|mother|mom|stepmom|brother|sister|coworker|co-worker"
    r"|neighbou?r|roommate|boyfriend|girlfriend|son|daughter|kids?|children|baby|manager"
    r"|supervisor|teacher|landlord|guy|girl|man|woman))\b"
    r"(?!\s+(?:feelings|back\b|by\s+(?:leaving|telling|saying)))"
)
FIREARM = r"(?:guns?|firearms?|pistols?|handguns?|rifles?|shotguns?|revolvers?|weapons?)"
FIREARM_WORDS = (
    "gun guns firearm firearms pistol pistols handgun handguns rifle rifles shotgun shotguns"
    " revolver revolvers weapon weapons"
)

# Order matters: where matches overlap, the earlier-starting one wins and, at the same start,
# the one listed first. Specific phrasings (past attempt, intent) therefore come before the
# generic ones they contain ("kill myself").
PATTERNS: tuple[Pattern, ...] = (
    # C-SSRS Q6: past suicidal behaviour.
    Pattern(PAST_ATTEMPT,
             r"\bI(?:'ve|\s+have|\s+had)?\s+(?:(?!never\b|not\b|n't\b)\w+\s+)?(?:tried|attempted)"
             r"\s+(?:to\s+)?(?:kill\s+myself|end\s+(?:my|it)\s+(?:own\s+)?life|end\s+it(?:\s+all)?"
             r"|take\s+my\s+(?:own\s+)?life|commit\s+suicide|suicide|overdose|OD|hang\s+myself"
             r"|drown\s+myself|shoot\s+myself|slit\s+my\s+wrists|jump\s+(?:off|from))",
             "tried attempted", reject_accidental=True),
    Pattern(PAST_ATTEMPT,
             r"\b(?:my|a|an|the)\s+(?:previous\s+|last\s+|first\s+|second\s+|prior\s+|earlier\s+)?"
             r"(?:suicide|suicidal)\s+attempts?\b",
             "attempt attempts"),
    Pattern(PAST_ATTEMPT,
             r"\battempted\s+suicide\b", "attempted | suicide", topic_name=True),
    Pattern(PAST_ATTEMPT,
             r"\bhistory\s+of\s+(?:a\s+|an\s+)?(?:suicide\s+attempts?|suicidal\s+behaviou?r"
             r"|overdoses?)\b",
             "history | suicide suicidal overdose overdoses", reject_accidental=True,
             topic_name=True),
    Pattern(PAST_ATTEMPT, r"\bI\s+(?:overdosed|OD'?d|took\s+an\s+overdose|had\s+an\s+overdose)\b",
             "overdosed od overdose",
             reject_accidental=True),
    Pattern(PAST_ATTEMPT,
             r"\b(?:after|since|survived|from)\s+(?:my|an?|the)\s+(?:\w+\s+)?"
             r"(?:overdose|attempt)\b",
             "overdose attempt", reject_accidental=True),
    Pattern(PAST_ATTEMPT,
             r"\bI\s+(?:took|swallowed)\s+(?:(?:a\s+)?(?:bunch|handful|bottle|whole\s+bottle"
             r"|entire\s+bottle)\s+of\s+" + _OWNER + r"(?:\w+\s+)?" + _PILLS
             + r"|all\s+(?:of\s+)?my\s+(?:\w+\s+)?" + _PILLS + r"\s+at\s+once)",
             "took swallowed | " + _PILL_WORDS, reject_accidental=True),
    # C-SSRS Q4: intent.
    Pattern(INTENT, r"\b" + _INTENT_LEAD + _SELF_ACT,
             _SELF_ACT_WORDS + " | going gonna ll will plan planning intend intending decided mind"
             " ready about",
             plan_if_timed=True),
    Pattern(INTENT,
             r"\b" + _INTENT_LEAD + r"end\s+(?:it|things|everything)\s+(?:tonight|today|now"
             r"|tomorrow|this\s+weekend|for\s+good|once\s+and\s+for\s+all)\b",
             "end | going gonna ll will plan planning intend intending decided mind ready about",
             plan_if_timed=True),
    Pattern(INTENT,
             r"\b(?:can'?t|cannot|won'?t\s+be\s+able\s+to|not\s+sure\s+(?:if\s+)?I\s+can"
             r"|don'?t\s+(?:know|think)\s+(?:if\s+|that\s+)?I\s+can)\s+"
             r"(?:keep\s+myself\s+safe|stay\s+safe|be\s+safe|promise\s+(?:I'?ll|I\s+will|to)\s+"
             r"(?:be|stay)\s+safe)",
             "safe | keep stay be promise", negation_in_pattern=True),
    Pattern(INTENT,
             r"\b(?:going\s+to|gonna|I'll|I\s+will|plan(?:ning)?\s+to|decided\s+to|ready\s+to"
             r"|might|think\s+I\s+(?:will|might|would)|I'd|would)\s+"
             r"(?:(?:just|finally|actually|really|probably)\s+)?"
             r"(?:do\s+it|act\s+on\s+(?:it|them|these\s+thoughts|the\s+thoughts|my\s+thoughts"
             r"|those\s+thoughts)|go\s+through\s+with\s+it|take\s+(?:them|those|these|it)\s+all"
             r"|end\s+it)\b",
             "it all act | going gonna ll will plan planning decided ready might think d would",
             needs_context=True, plan_if_timed=True),
    Pattern(INTENT, r"\b(?:with|and)\s+(?:clear\s+|stated\s+|active\s+)?intent\b", "intent",
             needs_context=True),
    # C-SSRS Q5: plan.
    Pattern(PLAN,
             r"\b(?:suicide\s+note|goodbye\s+(?:notes?|letters?)|farewell\s+(?:notes?|letters?))",
             "note notes letter letters"),
    Pattern(PLAN,
             r"\bI(?:'ve|\s+have)?\s+(?:got\s+|made\s+|come\s+up\s+with\s+|came\s+up\s+with\s+"
             r"|worked\s+out\s+|figured\s+out\s+)?(?:a|the|my)\s+plan\b",
             "plan", needs_context=True),
    Pattern(PLAN,
             r"\bwith\s+(?:a\s+)?(?:specific\s+|clear\s+|detailed\s+|concrete\s+)?plan\s+to\s+"
             + _SELF_ACT,
             "plan | " + _SELF_ACT_WORDS),
    Pattern(PLAN, r"\bwith\s+(?:a\s+)?(?:specific\s+|clear\s+|detailed\s+|concrete\s+)?plan\b",
             "plan", needs_context=True),
    Pattern(PLAN,
             r"\b(?:planned|planning|worked|figured|thought)\s+out\s+(?:how|when|where"
             r"|the\s+details|exactly)\b",
             "out", needs_context=True),
    Pattern(PLAN,
             r"\bgiv(?:e|ing|en)\s+away\s+(?:all\s+)?my\s+(?:stuff|things|belongings|possessions"
             r"|cat|dog|guitar)\b",
             "away", needs_context=True),
    Pattern(PLAN,
             r"\b(?:picked|chose|chosen|set|decided\s+on)\s+(?:a|the)\s+(?:date|day|time|spot"
             r"|place|location)\b",
             "date day time spot place location", needs_context=True),
    Pattern(PLAN,
             r"\bI\s+know\s+(?:exactly\s+)?(?:when|where)\s+I(?:'d|\s+would|'ll|\s+will"
             r"|'m\s+going\s+to)\s+do\s+it\b",
             "it", needs_context=True),
    # Access to means: stockpiling counts on its own, a firearm in the home needs company.
    Pattern(MEANS_ACCESS,
             r"\b(?:saving|saved|stockpil\w+|hoard\w*|collecting|collected|stashing|stashed"
             r"|hiding|hid)\s+(?:up\s+)?(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+|some\s+)?(?:\w+\s+)?"
             + _PILLS + r"\b",
             _PILL_WORDS + " | saving saved stockpile stockpiles stockpiled stockpiling hoard"
             " hoards hoarded hoarding collecting collected stashing stashed hiding hid"),
    Pattern(MEANS_ACCESS,
             r"\b(?:I\s+have|I've\s+got|I\s+got|got)\s+enough\s+(?:\w+\s+)?" + _PILLS
             + r"\s+(?:saved\s+(?:up\s+)?|stashed\s+|stockpiled\s+|left\s+|put\s+away\s+)?to\b"
             # "enough insulin to last the trip": an amount for the days.
             r"(?!\s+(?:last|get|cover|see|keep|share|fill)\b)",
             "enough | " + _PILL_WORDS),
    Pattern(MEANS_ACCESS,
             r"\b(?:stash|supply|stockpile|collection|hoard|bag|jar)\s+of\s+(?:\w+\s+)?" + _PILLS
             + r"\s+(?:hidden|saved|stashed|put\s+away|in\s+my|for\s+when)\b",
             _PILL_WORDS + " | stash supply stockpile collection hoard bag jar"),
    Pattern(MEANS_ACCESS,
             r"\b" + _PILLS + r"\s+(?:I've\s+|I\s+have\s+)?(?:saved|stashed|stockpiled|hidden"
             r"|hoarded)\s+(?:up\s+)?(?:to|for|in|away)\b",
             _PILL_WORDS + " | saved stashed stockpiled hidden hoarded"),
    Pattern(MEANS_ACCESS,
             r"\bI\s+(?:have|'ve\s+got|got)\s+(?:[\w']+\s+){0,3}?" + _PILLS + r"\b",
             _PILL_WORDS + " | have got", needs_context=True),
    Pattern(MEANS_ACCESS,
             r"\b(?:I\s+(?:have|own|keep|bought|got)|I've\s+got|there's|there\s+(?:is|are)|we\s+"
             r"(?:have|keep|own)|(?:he|she|my\s+\w+)\s+(?:has|keeps|owns))\s+(?:a\s+|some\s+"
             r"|two\s+|several\s+|his\s+|her\s+|my\s+)?(?:[\w']+\s+){0,3}?" + FIREARM + r"\b",
             FIREARM_WORDS, needs_corroboration=True),
    Pattern(MEANS_ACCESS,
             r"\bI\s+know\s+where\s+(?:my\s+\w+|he|she|they)\s+(?:keeps?|hides?|stores?)\s+"
             r"(?:the|his|her|their)\s+(?:\w+\s+)?" + FIREARM + r"\b",
             FIREARM_WORDS, needs_corroboration=True),
    Pattern(MEANS_ACCESS, r"\bI\s+(?:bought|got|have)\s+(?:a\s+)?rope\b", "rope",
             needs_corroboration=True),
    # C-SSRS Q3: method.
    Pattern(METHOD,
             r"\b(?:hang|hanging|hanged|shoot|shooting|drown|drowning|electrocut\w+|poison"
             r"|poisoning|suffocat\w+|stab|stabbing|strangle|strangling)\s+myself\b"
             r"(?!\s+in\s+the\s+foot)",
             "myself | hang hanging hanged shoot shooting drown drowning poison poisoning stab"
             " stabbing strangle strangling electrocute electrocuted electrocuting suffocate"
             " suffocated suffocating"),
    Pattern(METHOD,
             r"\b(?:slit|slitting|slice|slicing|cut|cutting|open|opening)\s+(?:my|both)\s+wrists\b",
             "wrists"),
    Pattern(METHOD,
             r"\b(?:jump|jumping|leap|leaping|throw\s+myself|throwing\s+myself)\s+(?:off|from"
             r"|in\s+front\s+of)\s+(?:a|the|that|my)\s+(?:\w+\s+)?(?:bridge|building|roof"
             r"|rooftop|balcony|cliff|overpass|train|bus|truck|parking\s+garage|window|tracks|subway"
             r"|metro|car|cars|traffic)\b",
             "jump jumping leap leaping throw throwing"),
    Pattern(METHOD,
             r"\b(?:step|stepping|walk|walking|lie|lying|lay|laying)\s+(?:down\s+)?"
             r"(?:in\s+front\s+of|onto|on)\s+(?:a|the)\s+(?:train|bus|truck|traffic|tracks"
             r"|highway)\b",
             "train bus truck traffic tracks highway | step stepping walk walking lie lying lay"
             " laying"),
    Pattern(METHOD,
             r"\b(?:drive|driving|crash|crashing|swerve|swerving|steer|steering)\s+(?:my\s+car\s+"
             r"|the\s+car\s+)?(?:off|into)\s+(?:a|the|that|oncoming)\s+(?:\w+\s+)?(?:bridge|cliff"
             r"|tree|wall|pole|traffic|lane|overpass|river|lake|median|barrier|truck|road|ditch"
             r"|embankment)\b",
             "drive driving crash crashing swerve swerving steer steering | into off"),
    Pattern(METHOD,
             r"\b(?:thought|thinking|think|thoughts|want(?:ed)?|wanna|tempted|urges?|considered"
             r"|considering|imagin\w*|picture|picturing)\s+(?:about\s+|of\s+|to\s+)?(?:just\s+)?"
             r"(?:(?:tak(?:e|ing)|swallow(?:ing)?)\s+" + _PILL_QUANTITY
             + r"|overdos(?:e|ing)|OD(?:ing)?\b)",
             _PILL_WORDS + " overdose overdosing od oding | thought thinking think thoughts want"
             " wanted wanna tempted urge urges considered considering imagine imagined imagining"
             " picture picturing"),
    Pattern(METHOD, r"\boverdos(?:e|ing)\b", "overdose overdosing", needs_context=True),
    Pattern(METHOD,
             r"\b(?:gun|pistol|rifle|shotgun|firearm|knife|blade)\s+(?:to|against|in)\s+"
             r"my\s+(?:head|mouth|temple|chest|throat)\b",
             "head mouth temple chest throat | gun pistol rifle shotgun firearm knife blade"),
    Pattern(METHOD,
             r"\b(?:thinking|thought|think|thoughts|reading|read)\s+(?:about|of|up\s+on)\s+(?:ways"
             r"|how)\s+to\s+(?:die|kill\s+myself|end\s+(?:it|my\s+life))\b",
             "ways how | die kill end"),
    # Preparation (C-SSRS behaviour): a noose, pills held ready.
    Pattern(PLAN,
             r"\b(?:made|tied|bought|got|have)\s+(?:a\s+)?noose\b|\b(?:held|holding|counted|counting"
             r"|lined\s+up|lining\s+up|poured\s+out)\s+(?:all\s+)?(?:the|my|those)\s+"
             + _PILLS + r"\s+(?:in\s+my\s+hand|out|on\s+the\s+(?:table|counter|bed))\b",
             "noose " + _PILL_WORDS),
    Pattern(METHOD,
             r"\bhow\s+easy\s+it\s+would\s+be\s+to\s+(?:just\s+)?(?:jump|crash|step\s+off|swerve"
             r"|drive\s+off|let\s+go)\b|\b(?:crash|crashing|wreck|wrecking)\s+(?:my|the)\s+car\s+"
             r"(?:on\s+purpose|deliberately|intentionally)\b",
             "easy crash crashing wreck wrecking | jump crash step swerve drive let car"),
    Pattern(METHOD,
             r"\bI'?d\s+(?:use|take)\s+(?:the|my|a|all\s+(?:the|my))\s+(?:pills|meds|gun|rope|knife"
             r"|razor|rifle|pistol)\b",
             "pills meds gun rope knife razor rifle pistol | d", needs_context=True),
    Pattern(METHOD,
             r"\buse\s+(?:it|the\s+gun|a\s+gun|the\s+knife|that|them)\s+on\s+myself\b",
             "myself | use"),
    Pattern(METHOD, r"\bcarbon\s+monoxide\b|\b(?:car|engine)\s+running\s+in\s+the\s+garage\b"
             r"|\bin\s+the\s+garage\s+with\s+the\s+(?:car|engine)\s+running\b"
             # "… running to warm it up", "… for a bit to defrost it": a cold morning.
             r"(?!\s+(?:to\s+(?:warm|heat|defrost|charge|clear|keep)|for|while)\b)",
             "monoxide garage"),
    Pattern(METHOD,
             r"\b(?:look(?:ed|ing)?\s+up|research(?:ed|ing)?|googl(?:e|ed|ing)|search(?:ed|ing)"
             r"(?:\s+for)?)\s+(?:how\s+(?:many|much)|(?:\w+\s+)?ways\s+to|how\s+to)\s+(?:\w+\s+){0,5}?"
             r"(?:it\s+would\s+take|to\s+(?:die|kill)|kill\s+myself|die|end\s+(?:it|my\s+life)"
             r"|overdose)\b",
             "look looked looking research researched researching google googled googling"
             " search searched searching"),
    Pattern(METHOD,
             r"\bI\s+know\s+(?:exactly\s+)?how\s+I(?:'d|\s+would|'ll|\s+will|'m\s+going\s+to"
             r"|\s+could)\s+do\s+it\b",
             "it", needs_context=True),
    Pattern(METHOD,
             r"\b(?:thought|thinking|think)\s+about\s+how\s+(?:I\s+(?:would|could|might)|I'd|to)"
             r"\s+do\s+it\b",
             "it", needs_context=True),
    # Self-harm (non-suicidal).
    Pattern(SELF_HARM,
             r"\b(?:cut|cutting|burn|burned|burnt|burning|scratch|scratching|carve|carving"
             r"|hit|hitting|punch|punching)\s+myself\b"
             r"(?!\s+(?:shaving|cooking|on\b|while|by\s+accident|accidentally|chopping"
             r"|in\s+the\s+kitchen))",
             "myself | cut cutting burn burned burnt burning scratch scratching carve carving hit"
             " hitting punch punching"),
    Pattern(SELF_HARM,
             r"\bI(?:'ve|\s+have|\s+had)?\s+(?:been\s+|started\s+|started\s+to\s+|keep\s+)?"
             r"(?:cut|cutting)\s+(?:again|my\s+(?:arms?|legs?|wrists?|thighs?|skin|stomach)"
             r"|on\s+my\s+(?:arms?|legs?|thighs?)|last\s+night|yesterday|this\s+(?:morning|week)"
             r"|today)\b",
             "cut cutting"),
    Pattern(SELF_HARM, r"\bself[- ]?harm(?:ing|ed)?\b|\bNSSI\b|\bself[- ]injur(?:y|ing|ious)\b",
             "harm harming harmed selfharm selfharming nssi injury injuring injurious",
             topic_name=True),
    Pattern(SELF_HARM,
             r"\b(?:urges?|thoughts?|thinking|want|wanted|wanting|tempted|felt\s+like|feel\s+like"
             r"|feeling\s+like|going|gonna|might)\s+(?:to\s+|of\s+|about\s+)?(?:\w+\s+)?"
             r"(?:hurt|harm|hurting|harming|injur\w*)\s+myself\b",
             "myself | hurt harm hurting harming injure injured injuring"),
    Pattern(SELF_HARM,
             r"\bI\s+(?:\w+\s+)?(?:burn|burned|burnt|cut|scratch|scratched|hit|bite|bit|carve|carved)\s+"
             r"my\s+(?:arms?|legs?|wrists?|thighs?|skin|stomach|hands?)\s+(?:with\s+(?:a\s+)?(?:lighter"
             r"|cigarettes?|razors?|blades?|knife|scissors|match(?:es)?)|on\s+purpose|when\s+I)\b",
             "arm arms leg legs wrist wrists thigh thighs skin stomach hand hands"
             " | burn burned burnt cut scratch scratched hit bite bit carve carved"),
    Pattern(SELF_HARM, r"\b(?:been|started|keep|kept)\s+(?:hurting|harming)\s+myself\b",
             "myself | hurting harming"),
    Pattern(SELF_HARM,
             r"\b(?:hurt|harm)(?:ed|ing)?\s+myself\s+(?:on\s+purpose|deliberately|intentionally)\b",
             "myself | purpose deliberately intentionally"),
    # C-SSRS Q1: wish to be dead (passive ideation).
    Pattern(WISH_TO_BE_DEAD,
             r"\bwish(?:ed|ing)?\s+(?:that\s+)?I\s+(?:was|were|could\s+be|'d\s+been|had\s+been)\s+"
             r"dead\b",
             "dead | wish wished wishing"),
    Pattern(WISH_TO_BE_DEAD,
             r"\bwish(?:ed|ing)?\s+(?:that\s+)?I\s+(?:could\s+)?(?:just\s+)?"
             r"(?:die|disappear\s+forever"
             r"|not\s+exist|didn'?t\s+exist|stop\s+existing|never\s+wake\s+up|wasn'?t\s+(?:here"
             r"|alive|born)|weren'?t\s+(?:here|alive|born)|had\s+never\s+been\s+born"
             r"|was\s+never\s+born|(?:go\s+to\s+)?sleep\s+forever)\b",
             "wish wished wishing", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:wants?|wanted|wanting|wanna)\s+to\s+(?:just\s+)?(?:die\b(?!\s+(?:of|from|laughing))"
             r"|be\s+dead\b)",
             "die dead"),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:might|may)\s+as\s+well\s+(?:be\s+dead|die)\b", "dead die | well"),
    Pattern(WISH_TO_BE_DEAD,
             r"\bdon'?t\s+care\s+(?:if|whether)\s+I\s+(?:live|die|wake\s+up)\b",
             "live die wake | care", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:death|dying|being\s+dead)\s+would\s+be\s+(?:a\s+)?(?:relief|easier|better"
             r"|welcome|peaceful)\b|\b(?:about|of)\s+not\s+being\s+(?:here|alive|around)\b",
             "death dying dead being | relief easier better welcome peaceful here alive around",
             negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:way\s+out|escape)\s+(?:except|but|other\s+than)\s+(?:dying|death|suicide"
             r"|killing\s+myself)\b",
             "dying death suicide killing | way escape", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:don'?t|do\s+not|didn'?t|did\s+not|no\s+longer)\s+(?:really\s+)?want\s+to\s+"
             r"(?:live|be\s+alive|exist|be\s+here\s+any\s?more|be\s+around\s+any\s?more"
             r"|wake\s+up)\b",
             "live alive exist anymore more wake | want", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:go|going|fall|falling)\s+(?:to\s+sleep|asleep)\s+and\s+(?:not|never)\s+"
             r"wak(?:e|ing)\s+up\b",
             "wake waking", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:hope|hoping|hoped)\s+(?:that\s+)?(?:I\s+)?(?:don'?t|won'?t|never|wouldn'?t)\s+"
             r"wake\s+up\b(?!\s+(?:late|early|too|again\s+at))",
             "wake", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\bbetter\s+off\s+(?:dead|not\s+existing|not\s+alive|not\s+being\s+(?:here|alive))\b"
             r"|\b(?:better\s+off|happier|better|easier)\s+"
             r"if\s+I\s+(?:was|were)\s+(?:dead|gone)\b",
             "off better happier easier | dead me was were wasn weren existing alive being",
             negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\bcan'?t\s+(?:see|imagine|picture)\s+myself\s+(?:living|being\s+alive|alive"
             r"|being\s+here)\s+(?:past|beyond|much\s+longer|in\s+\w+\s+years)\b"
             r"|\bdeserve\s+to\s+die\b|\b(?:should|ought\s+to)\s+(?:just\s+)?(?:die|be\s+dead)\b"
             r"(?!\s+(?:of|from|laughing))",
             "living alive here die dead | see imagine picture deserve should ought",
             negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:life|living)\s+(?:is(?:n'?t|\s+not|\s+no\s+longer)|isn'?t|wasn'?t)\s+worth\s+"
             r"(?:living|it)\b|\bnot\s+worth\s+living\b",
             "worth", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\bno\s+(?:reason|point)\s+(?:for\s+me\s+)?(?:to|in)\s+(?:living|live|be(?:ing)?\s+alive"
             r"|going\s+on|keep\s+living|stay(?:ing)?\s+alive)\b"
             r"|\bno\s+(?:reason|point)\s+(?:for|in)\s+me\s+(?:to\s+)?(?:be(?:ing)?\s+(?:here|around|alive)"
             r"|liv(?:e|ing))\b|\bwhat'?s\s+the\s+point\s+(?:of|in)\s+(?:living|being\s+alive"
             r"|going\s+on|staying\s+alive)\b",
             "reason point | living live alive going staying here around",
             negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\btired\s+of\s+(?:living|being\s+alive)\b|\bcan'?t\s+(?:go\s+on|keep)\s+living\b"
             r"|\bfe(?:el|eling|lt)\s+like\s+dying\b(?!\s+(?:of|from|laughing))"
             r"|\b(?:rather|prefer\s+to)\s+be\s+dead\b",
             "living alive dead dying | tired go keep rather prefer feel feeling felt",
             negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:wish(?:ed)?\s+(?:it|everything)\s+would\s+(?:all\s+)?(?:just\s+)?end"
             r"|want(?:ed)?\s+(?:it\s+all|everything)\s+to\s+(?:just\s+)?end"
             r"|want(?:ed)?\s+(?:it\s+all|everything|it)\s+to\s+(?:just\s+)?(?:all\s+)?stop\s+forever)\b",
             "end stop | wish wished want wanted"),
    Pattern(WISH_TO_BE_DEAD,
             r"\bhop(?:e|ing|ed)\s+(?:that\s+)?I\s+(?:get|got|would\s+get)\s+(?:hit|run\s+over)\s+by"
             r"|\bhop(?:e|ing|ed)\s+(?:that\s+)?I\s+(?:just\s+)?die\b",
             "hit run die | hope hoping hoped"),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:fantasi[sz]\w*|daydream\w*|think\w*|dream\w*)\s+about\s+(?:my\s+own\s+death"
             r"|my\s+(?:own\s+)?funeral|being\s+dead)\b",
             "death funeral dead | fantasize fantasise fantasizing fantasising daydream"
             " daydreaming think thinking dream dreaming"),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:nobody|no\s+one)\s+would\s+(?:even\s+)?(?:notice|care|miss\s+me)\s+if\s+I"
             r"\s+(?:died|was\s+gone|disappeared|killed\s+myself|wasn'?t\s+here|was\s+dead)\b",
             "notice care miss | died gone disappeared killed wasn dead", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\b(?:want|wanted)\s+to\s+(?:not\s+be\s+here|disappear\s+forever|stop\s+existing"
             r"|not\s+exist)\b",
             "here forever existing exist | want wanted", negation_in_pattern=True),
    Pattern(WISH_TO_BE_DEAD,
             r"\bpassive\s+(?:suicidal\s+ideation|death\s+wish|suicidal\s+thoughts)",
             "passive", topic_name=True),
    # C-SSRS Q2: active, non-specific suicidal thoughts.
    Pattern(SUICIDAL_IDEATION, r"\b(?:kill|killing|killed)\s+myself\b" + _KILL_MYSELF_IDIOMS,
             "myself | kill killing killed"),
    Pattern(SUICIDAL_IDEATION, r"\b(?:end|ending|ended|take|taking)\s+my\s+(?:own\s+)?life\b",
             "life | my"),
    Pattern(SUICIDAL_IDEATION, r"\bend(?:ing)?\s+it\s+all\b", "all | end ending"),
    Pattern(SUICIDAL_IDEATION,
             r"\b(?:commit(?:ting)?|contemplat\w+|consider(?:ed|ing)?)\s+suicide\b", "suicide"),
    Pattern(SUICIDAL_IDEATION,
             r"\b(?:suicide|dying|killing\s+myself)\s+(?:feels|seems|is|looks)\s+like\s+(?:the\s+)?"
             r"(?:only|best|easiest)\s+(?:option|way|answer|choice)\b|\bthe\s+only\s+(?:way\s+out"
             r"|option|answer)\s+is\s+(?:suicide|to\s+die|dying|to\s+kill\s+myself)\b",
             "suicide dying killing die | option way answer choice"),
    Pattern(SUICIDAL_IDEATION,
             r"\b(?:thoughts?|thinking|thought|think|ideas?)\s+(?:about|of)\s+(?:suicide\b"
             r"|ending\s+(?:it|things|everything)\b(?!\s+with))",
             "suicide ending"),
    Pattern(SUICIDAL_IDEATION,
             r"\b(?:urges?|urged|impulses?|tempted)\s+to\s+(?:just\s+)?end\s+(?:it|things|everything)\b"
             r"(?!\s+with)",
             "urge urges urged impulse impulses tempted | end"),
    Pattern(SUICIDAL_IDEATION,
             r"\bsuicidal\b(?:\s+(?:thoughts?|ideation|feelings?|urges?|ideas?))?", "suicidal",
             topic_name=True),
    Pattern(SUICIDAL_IDEATION, r"\bunalive\s+myself\b|\bkms\b", "unalive kms"),
    Pattern(SUICIDAL_IDEATION,
             r"\bwon'?t\s+be\s+(?:around|here)\s+(?:much\s+longer|for\s+(?:much\s+)?longer|for\s+long"
             r"|any\s?more)\b",
             "around here | won wont", negation_in_pattern=True),
    # "I'm scared I'll do something to myself": a vague statement that still needs asking.
    Pattern(SUICIDAL_IDEATION,
             r"\b(?:do|doing|did)\s+something\s+(?:stupid\s+|drastic\s+|bad\s+)?to\s+myself\b",
             "myself | do doing did"),
    # Homicidal ideation.
    Pattern(HOMICIDAL_IDEATION,
             r"\b(?:I'll|I\s+will|I'm\s+gonna)\s+(?:kill|hurt|stab|shoot|strangle|murder)\s+"
             + _OTHERS,
             "kill hurt stab shoot strangle murder | ll will gonna"),
    Pattern(HOMICIDAL_IDEATION,
             r"\b(?:want|wanted|wanting|wanna|going|gonna|plan(?:ning)?|intend(?:ing)?|decided"
             r"|ready|urges?|tempted)\s+to\s+(?:kill|hurt|harm|stab|shoot|strangle|murder|attack"
             r"|beat\s+up|choke|poison)\s+" + _OTHERS,
             "kill hurt harm stab shoot strangle murder attack beat choke poison | want wanted"
             " wanting wanna going gonna plan planning intend intending decided ready urge urges"
             " tempted"),
    Pattern(HOMICIDAL_IDEATION,
             r"\b(?:thoughts?|thinking|thought|fantasi[sz](?:e|ed|ing)|fantas(?:y|ies)|urges?"
             r"|images?|dreams?)\s+(?:about|of)\s+(?:killing|hurting|harming|stabbing|shooting"
             r"|strangling|murdering|attacking|choking|poisoning)\s+" + _OTHERS,
             "killing hurting harming stabbing shooting strangling murdering attacking choking"
             " poisoning | thoughts thought thinking fantasize fantasise fantasized fantasised"
             " fantasizing fantasising fantasy fantasies urge urges image images dream dreams"),
    Pattern(HOMICIDAL_IDEATION,
             r"\bhomicidal\b(?:\s+(?:thoughts?|ideation|feelings?|urges?))?", "homicidal",
             topic_name=True),
    Pattern(HOMICIDAL_IDEATION,
             r"\bshoot(?:ing)?\s+up\s+(?:the|my|a)\s+(?:school|office|workplace|work|church"
             r"|store)\b",
             "shoot shooting"),
    # Chart abbreviations.
    Pattern(WISH_TO_BE_DEAD, r"\b(?i:passive)\s+SI\b", "si", case_sensitive=True,
             topic_name=True),
    Pattern(SUICIDAL_IDEATION, r"\b(?:(?i:active)\s+)?SI\b", "si", case_sensitive=True,
             topic_name=True),
    Pattern(HOMICIDAL_IDEATION, r"\bHI\b", "hi", case_sensitive=True, topic_name=True),
    Pattern(PAST_ATTEMPT, r"\bI\s+OD'?d\b", "od", case_sensitive=True, reject_accidental=True),
)

COMPILED = tuple(
    re.compile(p.regex, 0 if p.case_sensitive else re.IGNORECASE) for p in PATTERNS
)


def _anchor_index(groups: tuple[tuple[frozenset[str], ...], ...]) -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for number, pattern_groups in enumerate(groups):
        for word in pattern_groups[0]:
            index.setdefault(word, []).append(number)
    return {word: tuple(numbers) for word, numbers in index.items()}


_ANCHOR_GROUPS = tuple(
    tuple(frozenset(group.split()) for group in pattern.anchors.split("|")) for pattern in PATTERNS
)
ANCHOR_INDEX = _anchor_index(_ANCHOR_GROUPS)
EXTRA_ANCHOR_GROUPS = tuple(groups[1:] for groups in _ANCHOR_GROUPS)
ANCHOR_WORDS = frozenset(ANCHOR_INDEX)
STRONG_ANCHOR_WORDS = frozenset(
    word
    for pattern, groups in zip(PATTERNS, _ANCHOR_GROUPS, strict=True)
    if not pattern.needs_context
    for word in groups[0]
)
