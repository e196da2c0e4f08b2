
search-48ee24ed63eeâ
'recommender/user_embedding/embeddings:0"16,1*;
.recommender/user_embedding/embeddings/part_0:0	€*G
.recommender/user_embedding/embeddings/part_1:0
198.18.7.12:CPU:0*I
.recommender/user_embedding/embeddings/part_2:0
198.18.7.13:CPU:0*4
.recommender/user_embedding/embeddings/part_3:0*G
.recommender/user_embedding/embeddings/part_4:0
198.18.7.11:CPU:0*I
.recommender/user_embedding/embeddings/part_5:0
198.18.7.11:CPU:0*;
.recommender/user_embedding/embeddings/part_6:0	€*8
.recommender/user_embedding/embeddings/part_7:0*8
.recommender/user_embedding/embeddings/part_8:0*I
.recommender/user_embedding/embeddings/part_9:0
198.18.7.12:CPU:0*H
/recommender/user_embedding/embeddings/part_10:0
198.18.7.12:CPU:0*H
/recommender/user_embedding/embeddings/part_11:0
198.18.7.13:CPU:0*7
/recommender/user_embedding/embeddings/part_12:0*9
/recommender/user_embedding/embeddings/part_13:0*H
/recommender/user_embedding/embeddings/part_14:0
198.18.7.11:CPU:0*H
/recommender/user_embedding/embeddings/part_15:0
198.18.7.12:CPU:0 
'recommender/item_embedding/embeddings:0"2,1*8
.recommender/item_embedding/embeddings/part_0:0*6
.recommender/item_embedding/embeddings/part_1:0ï
recommender/hidden/kernel:0"16,1*,
"recommender/hidden/kernel/part_0:0*=
"recommender/hidden/kernel/part_1:0
198.18.7.13:CPU:0*,
"recommender/hidden/kernel/part_2:0**
"recommender/hidden/kernel/part_3:0*,
"recommender/hidden/kernel/part_4:0*/
"recommender/hidden/kernel/part_5:0	€*/
"recommender/hidden/kernel/part_6:0	€*/
"recommender/hidden/kernel/part_7:0	€*=
"recommender/hidden/kernel/part_8:0
198.18.7.13:CPU:0*;
"recommender/hidden/kernel/part_9:0
198.18.7.13:CPU:0*-
#recommender/hidden/kernel/part_10:0*<
#recommender/hidden/kernel/part_11:0
198.18.7.11:CPU:0*+
#recommender/hidden/kernel/part_12:0*>
#recommender/hidden/kernel/part_13:0
198.18.7.12:CPU:0*.
#recommender/hidden/kernel/part_14:0€*<
#recommender/hidden/kernel/part_15:0
198.18.7.11:CPU:0€
recommender/hidden/bias:0"4*9
 recommender/hidden/bias/part_0:0
198.18.7.13:CPU:0*-
 recommender/hidden/bias/part_1:0	€*;
 recommender/hidden/bias/part_2:0
198.18.7.11:CPU:0*9
 recommender/hidden/bias/part_3:0
198.18.7.12:CPU:03
recommender/score/kernel:0
198.18.7.11:CPU:0%
recommender/score/bias:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search