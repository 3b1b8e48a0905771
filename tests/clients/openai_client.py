"""The official `openai` Python client against `lectern serve` (run by tests/core/serve.rs):
models, a chat completion and its citations, the same answer streamed, embeddings, and the error
replies the client turns into its own exceptions.

Usage: openai_client.py BASE_URL TOKEN FOLDER_MODEL EMBEDDING_DIMENSION
"""

import sys

import openai


def main() -> None:
    base_url, token, folder_model, dimension = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    client = openai.OpenAI(base_url=base_url, api_key=token, max_retries=0)

    models = [m.id for m in client.models.list()]
    assert "lectern" in models and folder_model in models, models

    question = [{"role": "user", "content": "Who lit the lamp?"}]
    completion = client.chat.completions.create(model=folder_model, messages=question)
    content = completion.choices[0].message.content
    assert completion.choices[0].finish_reason == "stop", completion
    assert "[^1]" in content, content
    citations = completion.model_extra["citations"]
    assert citations and citations[0]["document_name"] == "memo.pdf", citations
    assert citations[0]["page"] == 1, citations
    # Lectern's own options go in extra_body; what the strategy decided comes back beside the citations.
    confident = client.chat.completions.create(
        model=folder_model, messages=question, extra_body={"lectern": {"strategy": "confidence"}}
    )
    assert confident.model_extra["retrieval"]["strategy"] == "confidence", confident

    pieces, last = [], None
    for chunk in client.chat.completions.create(model=folder_model, messages=question, stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        last = chunk
    assert "".join(pieces) == content, (pieces, content)
    assert last.choices[0].finish_reason == "stop", last
    assert last.model_extra["citations"] == citations, last

    # The client asks for base64 by default, and for floats when told.
    packed = client.embeddings.create(model="lectern", input=["lamp at dusk", "keeper"])
    floats = client.embeddings.create(model="lectern", input="lamp at dusk", encoding_format="float")
    assert [len(e.embedding) for e in packed.data] == [dimension, dimension], packed
    assert all(abs(a - b) < 1e-6 for a, b in zip(packed.data[0].embedding, floats.data[0].embedding))

    try:
        client.chat.completions.create(model="lectern/Nowhere", messages=question)
        raise AssertionError("a model that is no folder was served")
    except openai.NotFoundError as e:
        assert e.code == "model_not_found", e
    try:
        client.chat.completions.create(model=folder_model, messages=[{"role": "assistant", "content": "Hi"}])
        raise AssertionError("a conversation without a question was answered")
    except openai.BadRequestError as e:
        assert "question" in e.message, e
    try:
        openai.OpenAI(base_url=base_url, api_key="lectern-wrong", max_retries=0).models.list()
        raise AssertionError("a wrong token was let in")
    except openai.AuthenticationError as e:
        assert e.code == "invalid_api_key", e
    print("openai client: ok")


if __name__ == "__main__":
    main()
