
search-c2cb1f38ea322
'recommender/user_embedding/embeddings:0€£
'recommender/item_embedding/embeddings:0"2,1*9
.recommender/item_embedding/embeddings/part_0:0€*8
.recommender/item_embedding/embeddings/part_1:0#
recommender/hidden/kernel:0ß
recommender/hidden/bias:0"4*(
 recommender/hidden/bias/part_0:0*-
 recommender/hidden/bias/part_1:0	€*+
 recommender/hidden/bias/part_2:0€*9
 recommender/hidden/bias/part_3:0
198.18.7.13:CPU:0È
recommender/score/kernel:0"3,1*<
!recommender/score/kernel/part_0:0
198.18.7.12:CPU:0*+
!recommender/score/kernel/part_1:0*:
!recommender/score/kernel/part_2:0
198.18.7.12:CPU:01
recommender/score/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search