"""Word lists and cue tables used by :class:`~agrag_lab.kg.extract.extraction.RuleExtractor`.

Everything here is plain data, so a change of rules is a change of this file
(and of :data:`RULES_VERSION`, which extractors put in their cache key).

Examples
--------
>>> "of" in NAME_CONNECTORS, "and" in NAME_CONNECTORS
(True, False)
>>> head_label(("Analytical", "Engine"))
'Machine'
"""

from __future__ import annotations

import re

#: Bump when any list or pattern here changes: cached extractions become stale.
RULES_VERSION = "rules-9"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Lowercase words allowed between capitalised words of one name.
NAME_CONNECTORS = _words(
    "of de del della der den des di da do dos das du la le les von van zu y et the for on upon al bin ibn el"
)
#: Connectors that may only follow another connector ("Society for the ...").
FOLLOWING_CONNECTORS = _words("the")
#: Connectors that only follow a head word ("Society for", "Transactions on").
HEAD_CONNECTORS = _words("for on")
#: Connectors that also bridge a lowercase word in foreign names
#: ("Bibliothèque universelle de Genève").
FOREIGN_CONNECTORS = _words("de del della der des di da du von van zu y")

#: Capitalised words that are not names on their own (stripped from span starts).
STOP_CAPITALISED = _words(
    """a an the this that these those there here it its he she his her hers him they them
    their theirs we our us you your i me my mine who whom whose which what when where why
    how in on at by for from to of with without within into onto upon over under after
    before during since until while although though however but and or nor so yet also
    if then thus hence because as than both either neither each every all any some many
    most much more few several such other another one two three four five six seven eight
    nine ten first second third last next later early late born died during despite
    between among against along around about above below near following according
    unlike like meanwhile moreover furthermore nevertheless instead indeed today
    yesterday tomorrow now once still even only just not no yes perhaps although nothing
    something anything everything nobody somebody anybody everybody someone anyone everyone
    none nor
    throughout beyond toward towards via per is was are were be been being has have had
    do does did will would can could may might must shall should let after upon
    originally currently formerly recently since additionally later eventually finally
    initially subsequently together unfortunately fortunately sometimes often usually
    see chapter part section table figure mr mrs ms dr""".replace("\n", " ")
)

#: Month and weekday names: parts of dates, not entities (unless dates are on).
DATE_WORDS = _words(
    "january february march april may june july august september october november "
    "december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday "
    "thursday friday saturday sunday"
)

#: Adjectives of nationality: kept inside names ("American Psychological
#: Association") but not as entities on their own (they would become hubs).
DEMONYMS = _words(
    """american british english french german italian spanish portuguese dutch belgian
    swiss austrian swedish norwegian danish finnish icelandic irish scottish welsh
    russian polish czech slovak hungarian romanian bulgarian greek turkish serbian
    croatian ukrainian chinese japanese korean indian pakistani bangladeshi iranian
    iraqi israeli arab arabic egyptian african nigerian kenyan ethiopian canadian
    mexican brazilian argentine argentinian chilean peruvian colombian venezuelan cuban
    australian european asian latin roman christian catholic protestant jewish muslim
    islamic hindu buddhist soviet byzantine ottoman victorian western eastern northern
    southern anglo""".replace("\n", " ")
)

#: Titles that make the following name a person ("Lord Byron", "Lady Byron").
PERSON_TITLES = _words(
    """lord lady sir dame mr mrs ms miss dr doctor professor prof king queen prince
    princess count countess duke duchess baron baroness earl marquess viscount emperor
    empress pope saint president general captain colonel admiral reverend rev sultan
    tsar czar archbishop bishop cardinal senator governor chancellor marquis esq""".replace("\n", " ")
)

#: Lowercase words that announce a person right after them ("psychologist Carl Rogers").
PERSON_ROLES = _words(
    """mathematician scientist physicist chemist astronomer engineer inventor poet
    writer author novelist playwright philosopher psychologist economist historian
    painter artist sculptor composer musician singer songwriter actor actress director
    producer politician statesman lawyer judge general soldier explorer architect
    designer teacher tutor professor student friend wife husband son daughter father
    mother brother sister uncle aunt cousin rapper guitarist drummer bassist pianist
    footballer player coach manager businessman entrepreneur journalist editor critic
    biologist botanist mentor collaborator colleague""".replace("\n", " ")
)

#: Offices and memberships a person holds ("Officer of the Military Engineers",
#: "Fellow of the Royal Society"): after a name, "Office of X" is the person's
#: role, not an entity; only X can be one.
OFFICES = _words(
    """officer officers fellow fellows member members president vice-president secretary
    treasurer director chairman chair professor lecturer reader governor minister
    ambassador commander knight companion dean rector principal chief captain colonel
    lieutenant major general admiral bishop archbishop superintendent inspector
    surveyor master warden curator librarian""".replace("\n", " ")
)

#: Common given names: a capitalised span starting with one is a person.
GIVEN_NAMES = _words(
    """ada augusta charles george william john james thomas henry richard robert edward
    mary elizabeth anne ann annabella jane sarah margaret catherine emily charlotte
    joseph marie louis pierre jean jacques luigi giuseppe giovanni carlo francesco
    antonio maria johann friedrich karl wilhelm ludwig wolfgang hans peter paul michael
    david daniel samuel benjamin isaac albert alfred arthur frederick francis harold
    howard walter frank alan alexander andrew anthony brian christopher douglas eric
    gary jack jeffrey kenneth kevin mark matthew patrick raymond ronald scott stephen
    steven timothy nicholas jonathan joshua ryan jason justin brandon adam nathan
    augustus lisa susan karen nancy betty helen sandra donna carol ruth sharon michelle laura
    kimberly deborah jessica shirley cynthia angela melissa brenda amy anna rebecca
    virginia kathleen pamela martha debra amanda stephanie carolyn christine janet
    catherine frances diana julia joan grace victoria rose alice florence lucy
    edith ella stanley erik sigmund carl isambard michael hermann ferdinand
    gottfried leonhard blaise rené rene nikola thomas grace alan claude ernst max
    niels werner enrico lise dorothy rosalind marie emmy sophie sofia""".replace("\n", " ")
)

#: Head words (any position) that give a label. Checked in this order.
HEAD_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "Machine",
        _words(
            """engine engines loom looms machine machines computer computers calculator
            mill telescope locomotive aircraft airplane rocket robot automaton
            tabulator typewriter printer"""
        ),
    ),
    (
        "Event",
        _words(
            """war wars battle revolution olympics olympic games championship championships
            cup exhibition expo festival election elections conference summit treaty crisis
            massacre siege rebellion uprising tournament congress convention riots
            earthquake hurricane famine"""
        ),
    ),
    (
        "Organization",
        _words(
            """society university museum association institute institution college
            academy company corporation corp inc ltd llc council party church club bank
            press records agency department ministry school foundation committee
            commission league federation army navy team band orchestra group network
            publishing media studios studio airlines airways railway railways board court
            parliament senate government bureau guild laboratory laboratories observatory
            library brigade regiment division fc entertainment pictures productions
            industries holdings hospital center centre"""
        ),
    ),
    (
        "Work",
        _words(
            """journal review magazine gazette times post herald tribune chronicle novel
            book album song film symphony opera notes sketch poem series show play
            encyclopedia encyclopaedia dictionary memoir memoirs letters transactions
            proceedings bulletin newspaper"""
        ),
    ),
    (
        "Place",
        _words(
            """city county river lake mountain mountains mount island islands street road
            avenue square park bay valley province state kingdom republic district region
            desert sea ocean peninsula hill hills falls canyon bridge airport station palace
            castle cathedral abbey harbour harbor coast gulf strait village town borough
            parish territory prefecture municipality tavern inn hotel cemetery"""
        ),
    ),
    (
        "Concept",
        _words(
            """theory theorem law laws principle equation equations algorithm numbers
            calculus method programming language effect syndrome disease hypothesis
            conjecture paradox doctrine philosophy movement"""
        ),
    ),
)

#: Lowercase words that extend a capitalised name ("Jacquard loom", "Bernoulli numbers").
EXTENDING_HEADS = _words(
    "loom engine machine numbers number theorem equation algorithm principle effect "
    "theory law conjecture paradox calculator movement"
)

#: Cue phrases right before a span that give its label ("born in X" → Place).
BEFORE_CUES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:born|died|raised|buried|lived|located|situated|based|headquartered|"
            r"settled|grew up|moved|emigrated|travell?ed|returned)\s+(?:in|at|to|near)\s+"
            r"(?:the\s+)?$"
        ),
        "Place",
    ),
    (
        re.compile(r"\b(?:city|town|village|capital|county|province|state) of\s+$"),
        "Place",
    ),
    (
        re.compile(
            r"\b(?:novel|film|album|song|book|poem|opera|play|single|article|paper|memoir|"
            r"essay|treatise|series|symphony|wrote|published|translated)\s+(?:the\s+)?$"
        ),
        "Work",
    ),
    (
        re.compile(r"\b(?:founded|joined|member of|fellow of)\s+(?:the\s+)?$"),
        "Organization",
    ),
)

#: Cue phrases right after a span that make it a person.
PERSON_AFTER = re.compile(
    r"^(?:\s*\((?:born\s+|b\.\s*|c\.\s*)?\d{3,4}|,?\s+(?:was born|who was|who is|\(born)|,\s+who\b|"
    r"\s+(?:was|is) an? (?:[a-z]+ )?(?:" + "|".join(sorted(PERSON_ROLES)) + r")\b)"
)

#: Lowercase words in a table header that are column names, not entities.
GENERIC_COLUMNS = _words(
    "name names year years date dates title type kind notes note description value "
    "values id total count number amount role position rank score result results "
    "source sources country city place location item items entity entities"
)


def head_label(tokens: tuple[str, ...]) -> str | None:
    """Label given by a head word of a name, or ``None``.

    The last token decides first (``"University of Copenhagen"`` also matches on
    its first token); labels are tried in :data:`HEAD_WORDS` order.

    Examples
    --------
    >>> head_label(("Royal", "Astronomical", "Society"))
    'Organization'
    >>> head_label(("University", "of", "Copenhagen"))
    'Organization'
    >>> head_label(("Charles", "Babbage")) is None
    True
    """
    lowered = [t.casefold() for t in tokens]
    if not lowered:
        return None
    for label, words in HEAD_WORDS:
        if lowered[-1] in words:
            return label
    if len(lowered) > 2 and lowered[1] in ("of", "for", "on"):
        for label, words in HEAD_WORDS:
            if lowered[0] in words:
                return label
    for label, words in HEAD_WORDS:
        if label in ("Machine", "Organization", "Event") and any(w in words for w in lowered[:-1]):
            return label
    return None


#: A small gazetteer of well-known places (lowercase match keys).
PLACES = frozenset(
    """london paris rome berlin vienna madrid lisbon amsterdam brussels geneva zurich
    turin milan naples venice florence moscow athens dublin edinburgh glasgow cambridge
    oxford manchester liverpool birmingham new york boston chicago washington philadelphia
    los angeles san francisco toronto montreal sydney melbourne tokyo beijing shanghai
    delhi mumbai cairo istanbul england scotland wales ireland britain great britain
    united kingdom france germany italy spain portugal netherlands belgium switzerland
    austria sweden norway denmark finland russia poland greece turkey china japan india
    canada mexico brazil argentina australia egypt united states usa america europe asia
    africa texas california florida ohio virginia massachusetts pennsylvania georgia
    bavaria prussia saxony piedmont lyon marseille""".replace("\n", " ").split()
) | frozenset(
    {
        "new york",
        "los angeles",
        "san francisco",
        "great britain",
        "united kingdom",
        "united states",
        "new york city",
        "hong kong",
        "new zealand",
        "south africa",
        "soviet union",
    }
)

#: Typed relation patterns, tried in order on the text between two names.
#: ``True`` means the pattern reads right to left ("written by": target wrote source).
RELATION_PATTERNS: tuple[tuple[re.Pattern[str], str, bool], ...] = tuple(
    (re.compile(pattern), relation_type, reverse)
    for pattern, relation_type, reverse in (
        (
            r"\b(?:worked|collaborated|partnered|cooperated)\s+(?:closely\s+)?(?:with|alongside)\b",
            "WORKED_WITH",
            False,
        ),
        (
            r"\b(?:collaborator|colleague|assistant|partner)\s+of\b",
            "WORKED_WITH",
            False,
        ),
        (
            r"\bcorresponded\s+with\b|\bwrote\s+(?:letters\s+)?to\b|\bletters?\s+(?:to|from)\b",
            "CORRESPONDED_WITH",
            False,
        ),
        (r"\bborn\s+(?:in|at|near)\b", "BORN_IN", False),
        (r"\b(?:daughter|son|child)\s+of\b", "CHILD_OF", False),
        (r"\b(?:father|mother|parent)\s+of\b", "CHILD_OF", True),
        (r"\b(?:married|wife\s+of|husband\s+of|spouse\s+of)\b", "MARRIED", False),
        (r"\btranslated\s+by\b", "TRANSLATED", True),
        (r"\btranslat(?:ed|ion\s+of|ing)\b", "TRANSLATED", False),
        (r"\b(?:written|authored)\s+by\b", "WROTE", True),
        (r"\b(?:wrote|writes|authored|penned)\b", "WROTE", False),
        (r"\b(?:designed|invented|conceived)\s+by\b", "DESIGNED", True),
        (r"\b(?:designed|invented|conceived|devised)\b", "DESIGNED", False),
        (r"\b(?:built|constructed|manufactured)\s+by\b", "BUILT", True),
        (r"\b(?:built|constructed|manufactured)\b", "BUILT", False),
        (r"\b(?:inspired|influenced)\s+by\b", "INSPIRED", True),
        (r"\b(?:inspired|influenced)\b", "INSPIRED", False),
        (
            r"\b(?:taught|tutored|mentored)\s+by\b|\bstudied\s+(?:under|with)\b|\b(?:student|pupil)\s+of\b",
            "TAUGHT",
            True,
        ),
        (
            r"\b(?:taught|tutored|mentored)\b|\b(?:tutor|teacher|mentor)\s+(?:of|to)\b",
            "TAUGHT",
            False,
        ),
        (r"\b(?:member|fellow)\s+of\b|\bjoined\b|\belected\s+to\b", "MEMBER_OF", False),
        (
            r"\b(?:located|situated|based|headquartered)\s+(?:in|at|near)\b|\bcapital\s+of\b",
            "LOCATED_IN",
            False,
        ),
        (r"\b(?:part|division|subsidiary|branch)\s+of\b", "PART_OF", False),
    )
)

#: "A was B's tutor": the role after the second name's possessive gives the type.
#: Maps the role to (relation type, reverse).
POSSESSIVE_ROLES: dict[str, tuple[str, bool]] = {
    "tutor": ("TAUGHT", False),
    "teacher": ("TAUGHT", False),
    "mentor": ("TAUGHT", False),
    "student": ("TAUGHT", True),
    "pupil": ("TAUGHT", True),
    "collaborator": ("WORKED_WITH", False),
    "colleague": ("WORKED_WITH", False),
    "assistant": ("WORKED_WITH", False),
    "wife": ("MARRIED", False),
    "husband": ("MARRIED", False),
    "daughter": ("CHILD_OF", False),
    "son": ("CHILD_OF", False),
    "child": ("CHILD_OF", False),
    "father": ("CHILD_OF", True),
    "mother": ("CHILD_OF", True),
}

#: Table header words that type the relation between a row's first cell and
#: the cell under them: header → (relation type, reverse). ``reverse`` means the
#: cell's entity is the source ("Designer": the cell designed the row subject).
TABLE_HEADER_CUES: dict[str, tuple[str, bool]] = {
    "designer": ("DESIGNED", True),
    "designed by": ("DESIGNED", True),
    "architect": ("DESIGNED", True),
    "inventor": ("DESIGNED", True),
    "author": ("WROTE", True),
    "writer": ("WROTE", True),
    "written by": ("WROTE", True),
    "builder": ("BUILT", True),
    "built by": ("BUILT", True),
    "manufacturer": ("BUILT", True),
    "translator": ("TRANSLATED", True),
    "birthplace": ("BORN_IN", False),
    "place of birth": ("BORN_IN", False),
    "born in": ("BORN_IN", False),
    "location": ("LOCATED_IN", False),
    "located in": ("LOCATED_IN", False),
    "headquarters": ("LOCATED_IN", False),
    "spouse": ("MARRIED", False),
    "wife": ("MARRIED", False),
    "husband": ("MARRIED", False),
    "parent": ("CHILD_OF", False),
    "father": ("CHILD_OF", False),
    "mother": ("CHILD_OF", False),
    "child": ("CHILD_OF", True),
    "children": ("CHILD_OF", True),
    "teacher": ("TAUGHT", True),
    "tutor": ("TAUGHT", True),
    "mentor": ("TAUGHT", True),
    "student": ("TAUGHT", False),
    "member of": ("MEMBER_OF", False),
    "affiliation": ("MEMBER_OF", False),
    "inspired by": ("INSPIRED", True),
    "influenced by": ("INSPIRED", True),
    "collaborator": ("WORKED_WITH", False),
    "collaborators": ("WORKED_WITH", False),
    "part of": ("PART_OF", False),
}
