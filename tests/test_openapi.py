"""The OpenAPI document: problem responses on every operation (app.core.openapi)."""

from __future__ import annotations

from fastapi.testclient import TestClient

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


def test_every_operation_documents_the_problem_responses(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operations = [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]
    assert len(operations) > 50
    for path, method, operation in operations:
        for status in ("401", "403", "404", "409", "422", "429"):
            response = operation["responses"].get(status)
            assert response is not None, (method, path, status)
            assert response["content"] == {"application/problem+json": {"schema": PROBLEM_REF}}
    # the ceremony's reveal and correction (issue 23), with their bodies and answers
    auctions = "/api/v1/events/{event_id}/auctions/{place}"
    reveal = schema["paths"][f"{auctions}/reveal"]["post"]
    correct = schema["paths"][f"{auctions}/rounds/{{number}}/correct"]["post"]
    assert reveal["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RevealRead"
    }
    assert correct["requestBody"]["required"] is True
    assert set(schema["components"]["schemas"]["CorrectionRequest"]["required"]) == {
        "reason",
        "void_bids",
    }
    shuffle = schema["paths"]["/api/v1/events/{event_id}/checkpoints/shuffle"]["post"]
    assert "Retry-After" in shuffle["responses"]["429"]["headers"]
    problem = schema["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail", "code"}
    assert problem["additionalProperties"] is True
    # FastAPI's own validation error body is never sent, so it is not documented.
    assert "HTTPValidationError" not in schema["components"]["schemas"]
