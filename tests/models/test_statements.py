"""A page and its total from one statement: the same rows and count as asking twice."""

from __future__ import annotations

import json
import os

import pytest

from models.base import db
from models.sessions import TherapySession
from models.statements import RowsWhere
from services.sessions import LIST_ORDER


def test_a_page_carries_the_total_and_the_rows_of_the_plain_page(client, auth, org, other_org,
                                                                   make_session):
    made = [make_session(patient_id=f"pat-{i % 3}") for i in range(7)]
    rows = RowsWhere(TherapySession, LIST_ORDER, organization=org.id)
    for page in (1, 2, 3):
        items, total = rows.page_and_count(page, 3)
        assert total == 7 == rows.count()
        assert [s.id for s in items] == [s.id for s in rows.paginate(page, 3)]
    assert {s.id for p in (1, 2, 3) for s in rows.page_and_count(p, 3)[0]} == \
        {s["id"] for s in made}
    only = RowsWhere(TherapySession, LIST_ORDER, organization=org.id, patient_id="pat-1")
    assert only.page_and_count(1, 10)[1] == 2
    # Past the end, and another organization's (empty) list: no rows, so no total.
    assert rows.page_and_count(4, 3) == ([], None)
    assert RowsWhere(TherapySession, LIST_ORDER, organization=other_org.id
                     ).page_and_count(1, 3) == ([], None)


def test_the_list_header_counts_exactly_on_every_page(client, auth, make_session):
    for _ in range(5):
        make_session()
    for page, expected in ((1, 2), (3, 1), (4, 0)):
        response = client.get(f"/api/therapy-sessions?page_size=2&page={page}", headers=auth)
        assert response.status_code == 200
        assert len(response.json) == expected
        assert json.loads(response.headers["X-Pagination"])["total"] == 5


@pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="PostgreSQL plan cache")
def test_a_list_page_is_planned_once_per_connection(client, auth, org, make_session):
    # PostgreSQL would otherwise plan a prepared page again at every run, judging a plan for
    # the values at hand cheaper than the generic one.
    make_session()
    rows = RowsWhere(TherapySession, LIST_ORDER, organization=org.id)
    with db.connection_context():
        for _ in range(8):
            assert rows.page_and_count(1, 20)[1] == 1
        plans = db.execute_sql("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                               "WHERE statement LIKE %s", ["%LIMIT%"]).fetchall()
    assert plans and all(custom == 0 and generic >= 1 for generic, custom in plans)
